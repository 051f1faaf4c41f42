// Git for `fuzzfarm ci`: where the repository is, which commits are compared,
// and the base checked out beside it with `git worktree` (removed afterwards).
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FuzzFarmError } from "@fuzzfarm/protocol";

function git(cwd: string, args: string[]): string {
  const r = spawnSync("git", ["-C", cwd, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new FuzzFarmError("FF_ERR_CONFIG", `git ${args.join(" ")} failed in ${cwd}: ${(r.stderr || r.stdout).trim().split("\n")[0]}`);
  return r.stdout.trim();
}

export function repoRootOf(dir: string): string {
  return git(dir, ["rev-parse", "--show-toplevel"]);
}

export function commitOf(root: string, ref: string): string {
  return git(root, ["rev-parse", "--verify", `${ref}^{commit}`]);
}

export interface BaseCheckout {
  dir: string;
  remove(): Promise<void>;
}

/** Check `sha` out in a temporary worktree of the repository at `root` (detached, no branch created). */
export async function checkoutBase(root: string, sha: string): Promise<BaseCheckout> {
  const parent = await mkdtemp(join(tmpdir(), "ffci-base-"));
  const dir = join(parent, "base");
  git(root, ["worktree", "add", "--detach", "--quiet", dir, sha]);
  return {
    dir,
    async remove() {
      spawnSync("git", ["-C", root, "worktree", "remove", "--force", dir], { encoding: "utf8" });
      await rm(parent, { recursive: true, force: true });
      spawnSync("git", ["-C", root, "worktree", "prune"], { encoding: "utf8" });
    },
  };
}
