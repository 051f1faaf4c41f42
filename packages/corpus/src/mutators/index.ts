// The registry of mutators, in a fixed order: the order is part of a job's
// reproducibility (the same seed picks the same mutator by index).
import type { Mutator } from "./types";
import { bitFlip } from "./bit-flip";
import { byteSet } from "./byte-set";
import { interesting } from "./interesting";
import { arithmetic } from "./arithmetic";
import { insertBytes } from "./insert-bytes";
import { deleteBytes } from "./delete-bytes";
import { duplicateBlock } from "./duplicate-block";
import { copyBlock } from "./copy-block";
import { dictInsert } from "./dict-insert";
import { dictOverwrite } from "./dict-overwrite";
import { splice } from "./splice";

export const MUTATORS: readonly Mutator[] = Object.freeze([
  bitFlip,
  byteSet,
  interesting,
  arithmetic,
  insertBytes,
  deleteBytes,
  duplicateBlock,
  copyBlock,
  dictInsert,
  dictOverwrite,
  splice,
]);

export { bitFlip, byteSet, interesting, arithmetic, insertBytes, deleteBytes, duplicateBlock, copyBlock };
export { dictInsert, dictOverwrite, splice };
export type { Mutator, MutationContext } from "./types";
