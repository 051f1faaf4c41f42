// Entry of the `fuzzfarm` command. `fuzzfarm node ...` is a drop-in `node`
// that test runners may start hundreds of times, so it is dispatched here
// before anything else loads (not even commander); every other command goes
// through main.ts. In the bundle, ./node-command is a separate file holding
// only the Node event fuzzer's command line (scripts/build.mjs).
const argv = process.argv.slice(2);
const first = argv.findIndex((a) => !a.startsWith("-"));

if (first >= 0 && argv[first] === "node") {
  const { runNodeCli } = await import("./node-command");
  runNodeCli(argv.slice(first + 1)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`fuzzfarm: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}\n`);
      process.exit(2);
    },
  );
} else {
  await import("./main");
}

export {};
