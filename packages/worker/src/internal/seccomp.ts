// The seccomp filter of the "fs" sandbox, as the classic-BPF program bwrap
// loads with `--seccomp FD` (after no_new_privs, before the target's exec).
// A deny-list: a target keeps every syscall Node, Deno, Bun and their
// runtimes use, and loses the ones that reach past its namespaces (mounts,
// keys, bpf, perf, ptrace of others, new namespaces). Built here because no
// maintained npm package compiles seccomp filters on Node 20 (libseccomp's
// bindings need a native build; the program is ~60 instructions).
//
//   ld arch; x86_64 -> A; aarch64 -> B; anything else (i386/arm compat calls): kill
//   A: ld nr; x32 ABI (nr >= 0x40000000) -> EPERM; clone -> C; clone3 -> ENOSYS; denied -> EPERM; allow
//   B: ld nr; clone -> C; clone3 -> ENOSYS; denied -> EPERM; allow
//   C: ld args[0] (low word); any CLONE_NEW* flag -> EPERM; allow
// clone3 passes its flags in memory the filter cannot read, so it answers
// ENOSYS: glibc (and Node's libuv threads through it) then falls back to
// clone, whose flags the filter does check.

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;
const EPERM = 1;
const ENOSYS = 38;
// offsets in struct seccomp_data: nr, arch, instruction pointer, args[6] (little-endian: low word first)
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LOW = 16;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const retErrno = (errno: number) => 0x00050000 | errno;

/** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME. */
export const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

/** Syscalls refused with EPERM, by name: [x86_64 number, aarch64 number]. */
export const DENIED_SYSCALLS: Readonly<Record<string, readonly [number, number]>> = {
  mount: [165, 40],
  umount2: [166, 39],
  pivot_root: [155, 41],
  chroot: [161, 51],
  // the new mount API
  open_tree: [428, 428],
  move_mount: [429, 429],
  fsopen: [430, 430],
  fsconfig: [431, 431],
  fsmount: [432, 432],
  fspick: [433, 433],
  mount_setattr: [442, 442],
  // other processes' memory (a target has no business in its runtime's helpers either)
  ptrace: [101, 117],
  process_vm_readv: [310, 270],
  process_vm_writev: [311, 271],
  // kernel keyrings, bpf, perf
  keyctl: [250, 219],
  add_key: [248, 217],
  request_key: [249, 218],
  bpf: [321, 280],
  perf_event_open: [298, 241],
  // new namespaces (clone is checked by its flags)
  unshare: [272, 97],
  setns: [308, 268],
};
const CLONE: readonly [number, number] = [56, 220];
const CLONE3: readonly [number, number] = [435, 435];

type Insn = { code: number; k: number; jt?: string; jf?: string } | { label: string };

const ld = (off: number): Insn => ({ code: 0x20, k: off }); // BPF_LD | BPF_W | BPF_ABS
const jeq = (k: number, jt: string): Insn => ({ code: 0x15, k, jt }); // BPF_JMP | BPF_JEQ | BPF_K
const jge = (k: number, jt: string): Insn => ({ code: 0x35, k, jt }); // BPF_JMP | BPF_JGE | BPF_K
const jset = (k: number, jt: string): Insn => ({ code: 0x45, k, jt }); // BPF_JMP | BPF_JSET | BPF_K
const ret = (k: number): Insn => ({ code: 0x06, k }); // BPF_RET | BPF_K
const label = (name: string): Insn => ({ label: name });

function archBlock(i: 0 | 1, x32: boolean): Insn[] {
  return [
    ld(OFF_NR),
    ...(x32 ? [jge(X32_SYSCALL_BIT, "deny")] : []),
    jeq(CLONE[i], "clone"),
    jeq(CLONE3[i], "enosys"),
    ...Object.values(DENIED_SYSCALLS).map((nrs) => jeq(nrs[i], "deny")),
    ret(RET_ALLOW),
  ];
}

/** Resolve labels to forward jump offsets and encode struct sock_filter[] (u16 code, u8 jt, u8 jf, u32 k). */
function assemble(prog: Insn[]): Buffer {
  const at = new Map<string, number>();
  const insns: Exclude<Insn, { label: string }>[] = [];
  for (const x of prog) {
    if ("label" in x) at.set(x.label, insns.length);
    else insns.push(x);
  }
  const out = Buffer.alloc(insns.length * 8);
  insns.forEach((x, pc) => {
    const off = (name: string | undefined) => {
      if (name === undefined) return 0;
      const d = at.get(name)! - pc - 1;
      if (!(d >= 0 && d <= 255)) throw new Error(`seccomp: jump to ${name} out of range (${d})`);
      return d;
    };
    out.writeUInt16LE(x.code, pc * 8);
    out.writeUInt8(off(x.jt), pc * 8 + 2);
    out.writeUInt8(off(x.jf), pc * 8 + 3);
    out.writeUInt32LE(x.k >>> 0, pc * 8 + 4);
  });
  return out;
}

/**
 * The filter as bytes for `bwrap --seccomp FD` (the host's byte order: little-endian, as both architectures it
 * covers are). Processes of any other architecture (32-bit compat calls on a 64-bit host) are killed.
 */
export function seccompProgram(): Buffer {
  return assemble([
    ld(OFF_ARCH),
    jeq(AUDIT_ARCH_X86_64, "x86_64"),
    jeq(AUDIT_ARCH_AARCH64, "aarch64"),
    ret(RET_KILL_PROCESS),
    label("x86_64"),
    ...archBlock(0, true),
    label("aarch64"),
    ...archBlock(1, false),
    label("clone"),
    ld(OFF_ARG0_LOW),
    jset(CLONE_NAMESPACE_FLAGS, "deny"),
    ret(RET_ALLOW),
    label("deny"),
    ret(retErrno(EPERM)),
    label("enosys"),
    ret(retErrno(ENOSYS)),
  ]);
}

/** Whether this machine's architecture is one the filter covers (else the "fs" sandbox is not offered). */
export const seccompCovers = (arch: string = process.arch) => arch === "x64" || arch === "arm64";
