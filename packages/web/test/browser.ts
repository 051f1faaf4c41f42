// Headless Debian chromium driven by playwright-core, for the browser tests.
// A missing chromium is a failure with a clear message, never a skip: CI
// installs it (apt-get install -y chromium).
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts/web/", import.meta.url));

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`browser tests need Debian's chromium at ${CHROMIUM}: run \`apt-get install -y chromium\``);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update", "--no-first-run"],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
