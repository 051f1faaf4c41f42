// Command lines an operator writes in configuration (a worker's command engines, the CLI's --cmd)
// become argv arrays here, and are then started without a shell: quotes group words, nothing
// is expanded ($VAR, globs, ~), and ; | & > < are ordinary characters of a word.
import { FuzzFarmError } from "./errors";

/**
 * Split a command line into words the way a POSIX shell groups them, with no expansion:
 * whitespace separates words; '...' is literal; "..." is literal except `\"` and `\\`; a backslash
 * outside quotes takes the next character literally. Throws FF_ERR_CONFIG on an unterminated quote
 * or a trailing backslash.
 */
export function splitArgv(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = closing(line, i, c);
      const body = line.slice(i + 1, end);
      word += c === '"' ? body.replace(/\\(["\\])/g, "$1") : body;
      inWord = true;
      i = end;
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new FuzzFarmError("FF_ERR_CONFIG", `command line ends with a backslash: ${line}`);
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Index of the quote closing the one at `start` (in double quotes, `\"` and `\\` do not close). */
function closing(line: string, start: number, q: string): number {
  for (let j = start + 1; j < line.length; j++) {
    if (q === '"' && line[j] === "\\" && (line[j + 1] === '"' || line[j + 1] === "\\")) j++;
    else if (line[j] === q) return j;
  }
  throw new FuzzFarmError("FF_ERR_CONFIG", `unterminated ${q === '"' ? "double" : "single"} quote in command line: ${line}`);
}

/** Split on `sep` outside quotes (a list of command lines in one setting); empty items are dropped. */
export function splitOutsideQuotes(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  let q: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) {
      if (c === "\\" && q === '"' && i + 1 < text.length) cur += c + text[++i];
      else {
        if (c === q) q = null;
        cur += c;
      }
    } else if (c === "\\" && i + 1 < text.length) cur += c + text[++i];
    else if (c === "'" || c === '"') {
      q = c;
      cur += c;
    } else if (c === sep) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}
