/** The RPC face's mount, limits and CORS, shared by its router (index.ts) and the memory tier (../memory-answer.ts). */
import { HEIGHT_HEADER } from "../match";

/** Where the face is mounted. */
export const RPC_ROUTE = "/rpc";
/** Most calls in one batch. */
export const RPC_MAX_BATCH = 20;
/** Headers a browser may read from an RPC answer. */
export const RPC_EXPOSED_HEADERS =
  `x-cache,${HEIGHT_HEADER},server-timing,x-request-id,` + "x-edge-upstream,x-edge-attempts,x-edge-behind";
