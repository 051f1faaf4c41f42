/** One finding of a deployment check: where in the document, and what is wrong. */
export interface Problem {
  where: string;
  what: string;
}
