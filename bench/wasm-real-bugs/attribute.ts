// Which known bug is a bucket? A finding of a campaign on a fixed release is
// either the campaign's own bug not fixed after all, another miscompile that
// release still has, or a harness defect. This takes each bucket's stored
// reproducer (the minimized program and the optimization level it failed at),
// optimizes it with every release of the benchmark and runs it sequentially in
// this process (no schedule, no farm): a bucket is bug B's when B's affected
// release gets the program wrong and B's fixed release gets it right.
//   node --import tsx bench/wasm-real-bugs/attribute.ts --campaign ID | BUCKET_ID...
import { fileURLToPath } from "node:url";
import { loadConfig } from "@fuzzfarm/config";
import { createDb } from "@fuzzfarm/db";
import { emitWat, encodeWat, expectedOf, optimize, type OptLevel, programFromJson } from "@fuzzfarm/engine-wasm";
import { BUGS } from "./bugs";
import { installReleases, versionDir } from "./install";
import { runSequential } from "./scan";

export interface Attribution {
  bucketId: string;
  opt: OptLevel | null;
  /** Per release: "right", "wrong", "invalid" (output does not validate) or "crash". */
  releases: Record<string, "right" | "wrong" | "invalid" | "crash">;
  /** Bugs of bugs.ts whose affected release gets the program wrong and whose fixed release gets it right. */
  bugs: string[];
}

/** Every release of the benchmark, oldest first. */
export const RELEASES = [...new Set(BUGS.flatMap((b) => [b.affected, b.fixed]))].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));

async function judge(reproducer: any): Promise<Omit<Attribution, "bucketId">> {
  const p = programFromJson(reproducer.trace.program);
  const opt: OptLevel | null = reproducer.trace.config?.opt ?? reproducer.options?.opt ?? null;
  const bytes = await encodeWat(emitWat(p));
  const expected = expectedOf(p);
  const releases: Attribution["releases"] = {};
  for (const v of RELEASES) {
    try {
      releases[v] = runSequential(await optimize(bytes, opt ?? "O2", { path: versionDir(v), cmd: null }), p) === expected ? "right" : "wrong";
    } catch (e) {
      releases[v] = String(e).includes("does not validate") ? "invalid" : "crash";
    }
  }
  const bugs = BUGS.filter((b) => releases[b.affected] !== "right" && releases[b.fixed] === "right").map((b) => b.id);
  return { opt, releases, bugs };
}

/** Attribute buckets (by id) or every oracle bucket a campaign reported. */
export async function attribute(q: { campaignId?: string; bucketIds?: string[] }): Promise<Attribution[]> {
  installReleases(RELEASES);
  const db = createDb({ url: loadConfig().databaseUrl });
  try {
    const ids = q.bucketIds ?? (await db.prisma.crashReport.findMany({ where: { campaignId: q.campaignId!, kind: "oracle" }, distinct: ["bucketId"], select: { bucketId: true } })).map((r) => r.bucketId);
    const out: Attribution[] = [];
    for (const bucketId of ids) {
      const r = await db.prisma.crashReport.findFirst({ where: { bucketId }, orderBy: { createdAt: "asc" } });
      const reproducer = (r?.artifact as { reproducer?: any } | undefined)?.reproducer;
      if (!reproducer?.trace?.program) continue;
      out.push({ bucketId, ...(await judge(reproducer)) });
    }
    return out;
  } finally {
    await db.close();
  }
}

export const attributionLine = (a: Attribution): string =>
  `${a.bucketId} (-${a.opt}): ${a.bugs.length ? a.bugs.join(", ") : "no known bug"}; ${Object.entries(a.releases).map(([v, r]) => `${v} ${r}`).join(", ")}`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf("--campaign");
  if ((i >= 0 && !args[i + 1]) || !args.length) throw new Error("usage: attribute.ts --campaign ID | BUCKET_ID...");
  const res = await attribute(i >= 0 ? { campaignId: args[i + 1]! } : { bucketIds: args });
  for (const a of res) console.log(attributionLine(a));
  if (!res.length) console.log("no oracle buckets with a generated program");
}
