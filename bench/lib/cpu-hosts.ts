// Hosts of fixed CPU size on one machine, for benches that compare 1 worker
// against N: each worker process (and every child it forks later: engine
// children, targets, sandboxes) runs in its own cgroup v1 with a CFS quota of
// `cores` (cpu.cfs_quota_us over the default 100 ms period), so adding
// workers adds CPU the way adding hosts would, instead of N processes sharing
// this machine's cores. Usage is read from a cgroup of the same name in the
// cpuacct hierarchy (cpuacct.usage, ns), throttling from cpu.stat.
//
// All groups live under one parent, /sys/fs/cgroup/{cpu,cpuacct}/fuzzfarm-bench-<random>.
// The parent gets a high cpu.shares: in cgroup v1 a group competes with the
// tasks beside it as ONE entity, so on a machine where other work keeps 8
// tasks runnable the capped workers together would get about one task's
// share, far below their quotas. With the high weight each host gets its
// quota whenever the machine has it (the quotas still cap the total).
//
// Needs root and cgroup v1 cpu + cpuacct mounted (this machine: yes).
import { mkdirSync, readFileSync, rmdirSync, writeFileSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

const CPU_ROOT = "/sys/fs/cgroup/cpu";
const ACCT_ROOT = "/sys/fs/cgroup/cpuacct";
const PERIOD_US = 100_000;
/** cpu.shares of the parent group (the kernel's maximum is 262144; a nice-0 task weighs 1024). */
const PARENT_SHARES = 65_536;

export interface CpuHost {
  /** Group name, relative to the bench parent. */
  name: string;
  /** Shell prefix that enters this host's groups, then execs the command: `sh -c <enter> sh <cmd...>`. */
  enter: string;
  /** CPU time used by every process that ran in this host so far, seconds. */
  usage(): number;
  /** CFS periods so far and how many of them hit the quota. */
  throttling(): { periods: number; throttled: number };
}

export interface CpuHosts {
  parent: string;
  /** A new host capped at `cores` (0.4 = 40 ms of CPU per 100 ms). */
  create(name: string, cores: number): CpuHost;
  /** Kill what is left in the host's groups (SIGKILL by pid) and remove them. */
  remove(host: CpuHost): Promise<void>;
  /** Remove every host still there, then the parent. Safe to call twice. */
  removeAll(): Promise<void>;
}

/** Thrown as a one-line message when the cgroup files cannot be written. */
export class CgroupUnavailable extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function openCpuHosts(): CpuHosts {
  const parent = `fuzzfarm-bench-${randomBytes(4).toString("hex")}`;
  try {
    mkdirSync(join(CPU_ROOT, parent));
    mkdirSync(join(ACCT_ROOT, parent));
    writeFileSync(join(CPU_ROOT, parent, "cpu.shares"), String(PARENT_SHARES));
  } catch (e) {
    for (const root of [CPU_ROOT, ACCT_ROOT]) try { rmdirSync(join(root, parent)); } catch { /* not created */ }
    throw new CgroupUnavailable(`cannot create cgroups under ${CPU_ROOT} and ${ACCT_ROOT} (needs root and cgroup v1 cpu + cpuacct): ${(e as Error).message.split("\n")[0]}`);
  }
  const hosts = new Map<string, CpuHost>();

  const pidsIn = (dir: string) => {
    try { return readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number); } catch { return []; }
  };

  async function removeDirs(dirs: string[]) {
    for (let attempt = 0; ; attempt++) {
      const left = dirs.filter((d) => existsSync(d));
      if (!left.length) return;
      for (const d of left) {
        // only processes this bench started (and their children) are in here
        for (const pid of pidsIn(d)) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
        try { rmdirSync(d); } catch (e) { if (attempt >= 50) throw new Error(`cannot remove cgroup ${d}: ${(e as Error).message.split("\n")[0]}`); }
      }
      await sleep(100);
    }
  }

  return {
    parent,
    create(name, cores) {
      const cpu = join(CPU_ROOT, parent, name);
      const acct = join(ACCT_ROOT, parent, name);
      mkdirSync(cpu);
      mkdirSync(acct);
      writeFileSync(join(cpu, "cpu.cfs_period_us"), String(PERIOD_US));
      writeFileSync(join(cpu, "cpu.cfs_quota_us"), String(Math.round(cores * PERIOD_US)));
      const host: CpuHost = {
        name,
        // $$ is the shell; exec keeps the pid, so the command itself starts inside both groups
        enter: `echo $$ > ${cpu}/cgroup.procs && echo $$ > ${acct}/cgroup.procs && exec "$@"`,
        usage: () => Number(readFileSync(join(acct, "cpuacct.usage"), "utf8")) / 1e9,
        throttling() {
          const stat = Object.fromEntries(readFileSync(join(cpu, "cpu.stat"), "utf8").split("\n").filter(Boolean).map((l) => l.split(" ") as [string, string]));
          return { periods: Number(stat.nr_periods ?? 0), throttled: Number(stat.nr_throttled ?? 0) };
        },
      };
      hosts.set(name, host);
      return host;
    },
    async remove(host) {
      hosts.delete(host.name);
      await removeDirs([join(CPU_ROOT, parent, host.name), join(ACCT_ROOT, parent, host.name)]);
    },
    async removeAll() {
      for (const h of [...hosts.values()]) await this.remove(h);
      await removeDirs([join(CPU_ROOT, parent), join(ACCT_ROOT, parent)]);
    },
  };
}
