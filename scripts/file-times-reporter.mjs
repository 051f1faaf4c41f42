// A node --test reporter that writes, per test file, its wall time (node's own `test:complete` event for
// the file's process, whose name is the file's path) as JSON ({ file: ms }) when the run ends.
// scripts/test.mjs runs it beside the TAP reporter and prints the ten slowest files before node's closing
// summary (Node 20's TAP output names tests, not their files).
export default async function* fileTimes(source) {
  const times = {};
  for await (const event of source)
    if (event.type === "test:complete" && event.data.file && event.data.name === event.data.file)
      times[event.data.file] = Math.round(event.data.details?.duration_ms ?? 0);
  yield JSON.stringify(times);
}
