/** One row of the devnet's REST table, and the list answer every paginated row shares. */
import type { Ledger } from "./ledger.ts";
import { paginate } from "./pagination.ts";

/** Answers a matched request at `height` (the latest, or the one the request asked for). */
type Answer = (ledger: Ledger, params: Record<string, string>, query: URLSearchParams, height: number) => unknown;

export interface ModuleRoute {
  /** Path with `{ns}` for the brand namespace and `:name` parameters. */
  path: string;
  answer: Answer;
}

/** `{[key]: page, pagination}`, as every list query of the SDK answers. */
export const list = <T>(key: string, items: readonly T[], query: URLSearchParams) => {
  const { page, pagination } = paginate(items, query);
  return { [key]: page, pagination };
};
