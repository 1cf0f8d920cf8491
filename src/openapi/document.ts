/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 description of this deployment, generated from the
 * zod schemas the handlers use and from the gateway's route table, with the brand words of the
 * configuration filled in. Built once per isolate, on first request.
 */
import * as z from "zod/mini";
import { version } from "../../package.json";
import type { Config } from "../config";
import { errorBodySchema } from "../error-body-schema";
import { X_CACHE_PATTERN } from "../gateway/cache-status";
import { routeNote } from "../gateway/route-notes";
import { GATEWAY_ROUTES, HISTORICAL_ANSWER_TTL, answerTtl, type GatewayRoute } from "../gateway/route-table";
import {
  QUERY_DESCRIPTIONS,
  QUERY_VALUES,
  blockHeightSchema,
  paramDescriptions,
  paramSchemas,
} from "../gateway/validators";
import { onboardingComponents, onboardingPaths } from "../onboardings/http/openapi";
import { ACCOUNT_LABEL_MAX, PUBKEY_MAX_BYTES, PUBKEY_MIN_BYTES } from "../protocol/index";
import { sessionRowSchema } from "../protocol/session-row";
import { walletProofBody } from "./wallet-proof-body";
import {
  createSessionSchema,
  SESSION_CONFIRM_BODY_LIMIT,
  SESSION_CREATE_BODY_LIMIT,
  sessionIdSchema,
} from "../sessions/schemas";

type Json = Record<string, unknown>;

const schema = (s: z.ZodMiniType, io: "input" | "output" = "output"): Json => {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Json;
  return rest;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (body: Json) => ({ "application/json": { schema: body } });
const errorAnswer = (description: string) => ({ description, content: json(ref("Error")) });

/** The document for one configuration. */
export function openApiDocument(config: Config): Json {
  const sessions = `/api/${config.walletPath}/sessions`;
  const idParam = {
    name: "id",
    in: "path",
    required: true,
    schema: schema(sessionIdSchema),
    description: "Session id: cs_ and 32 lowercase hex characters",
  };
  const row = { description: "The session row", content: json(ref("SessionRow")) };
  const noStore = { "Cache-Control": { schema: { type: "string", const: "no-store" } } };

  const paths: Record<string, Json> = {
    [sessions]: {
      post: {
        tags: ["sessions"],
        operationId: "createSession",
        summary: "Create a pairing session",
        description:
          `Stores a pending session for a client-minted id (or mints one). origin.url must be this ` +
          `server's origin and relay_url exactly its confirm URL, over HTTPS (plain http only on loopback hosts). ` +
          `expires_at (default: five minutes) may be at most ${config.sessionTtlMaxSeconds} seconds from now; a ` +
          `later one is refused, never shortened. Rate-limited per client.`,
        requestBody: { required: true, content: json(schema(createSessionSchema, "input")) },
        responses: {
          "201": { ...row, headers: { Location: { schema: { type: "string" } }, ...noStore } },
          "400": errorAnswer(
            "Invalid payload, origin or relay_url; expires_at past or beyond the cap (EXPIRES_AT_IN_PAST, " +
              "EXPIRES_AT_TOO_LATE with metadata max_seconds and latest_expires_at)",
          ),
          "403": errorAnswer("Another origin, or plain http from a non-loopback host"),
          "409": errorAnswer("The session id already exists"),
          "413": errorAnswer(`Body over ${SESSION_CREATE_BODY_LIMIT} bytes`),
          "415": errorAnswer("Not application/json"),
          "429": errorAnswer("Too many sessions created by this client"),
        },
      },
    },
    [`${sessions}/{id}`]: {
      get: {
        tags: ["sessions"],
        operationId: "readSession",
        summary: "Read a session (or subscribe to it)",
        description:
          "Answers the current row (pending, connected or cancelled). An expired session is answered 410 " +
          "(SESSION_EXPIRED), which ends the wait of a client that knows no `expired` status. With `Upgrade: " +
          "websocket` (from this origin only) the same path is a push channel: the row, expired included, is " +
          "sent at once and on every change; any message asks for it again; `ping` is answered `pong`; the " +
          "socket closes once the session is settled.",
        parameters: [idParam],
        responses: {
          "200": { ...row, headers: noStore },
          "101": { description: "WebSocket push channel" },
          "400": errorAnswer("Malformed id"),
          "403": errorAnswer("WebSocket from another origin"),
          "404": errorAnswer("Unknown session (the SDK's 'not yet')"),
          "410": errorAnswer("Expired (SESSION_EXPIRED)"),
        },
      },
      delete: {
        tags: ["sessions"],
        operationId: "cancelSession",
        summary: "Cancel a pending session",
        description:
          "Marks a pending session cancelled; repeating it is harmless. A connected session cannot be cancelled; an " +
          "expired one answers 410.",
        parameters: [idParam],
        responses: {
          "200": row,
          "400": errorAnswer("Malformed id"),
          "404": errorAnswer("Unknown session"),
          "409": errorAnswer("Already connected"),
          "410": errorAnswer("Expired (SESSION_EXPIRED)"),
        },
      },
    },
    [`${sessions}/{id}/confirm`]: {
      post: {
        tags: ["sessions"],
        operationId: "confirmSession",
        summary: "Confirm a session with the wallet's proof",
        description:
          `The wallet's relayed proof, read as the network's wallet SDK reads it: snake_case or ` +
          `camelCase spellings (both present must agree); a non-string or empty value counts as absent; other ` +
          `fields are ignored and not stored. address: bech32 with prefix "${config.bech32Prefix}", checksum ` +
          `verified, 20-byte payload, all-lowercase or all-uppercase, surrounding spaces trimmed; stored ` +
          `lowercase. pubkey_base64 (required): base64 or base64url, padded or not, ${PUBKEY_MIN_BYTES} to ` +
          `${PUBKEY_MAX_BYTES} bytes; stored as standard padded base64. account_label: at most ` +
          `${ACCOUNT_LABEL_MAX} characters, no control characters; empty means none. The first valid ` +
          `confirm wins; the same proof again is 200; another is 409 and changes nothing.`,
        parameters: [idParam],
        requestBody: { required: true, content: json(walletProofBody(config)) },
        responses: {
          "200": row,
          "400": errorAnswer("Invalid proof"),
          "404": errorAnswer("Unknown session"),
          "409": errorAnswer("Already connected with another proof, or its onboarding holds another wallet"),
          "410": errorAnswer("Cancelled or expired, the session or its onboarding (SESSION_*, ONBOARDING_*)"),
          "503": errorAnswer("Its onboarding did not answer within 5 s (ONBOARDING_NOT_ANSWERING): confirm again"),
          "413": errorAnswer(`Body over ${SESSION_CONFIRM_BODY_LIMIT} bytes`),
          "415": errorAnswer("Not application/json"),
        },
      },
    },
    "/api/config": {
      get: {
        tags: ["service"],
        operationId: "pageSettings",
        summary: "Public settings for the onboarding page",
        responses: { "200": { description: "Chain id, prefix, namespace, wallet path, scheme, denom, binary" } },
      },
    },
    "/api/health": {
      get: {
        tags: ["service"],
        operationId: "health",
        summary:
          "Version, configuration summary, upstream state, the " +
          "webhook endpoint's state, and whether the onboarding index is ready",
        description:
          "index: {ready: true} when every table of the index's " +
          "migrations is there; else ready false, the missing tables and " +
          "fix, the command that creates them (the host API's list and " +
          "feed answer 503 INDEX_NOT_READY meanwhile). Not part of status.",
        responses: {
          "200": { description: "Some upstream is usable" },
          "503": { description: "Every upstream is being skipped after failures" },
        },
      },
    },
    "/api/openapi.json": {
      get: {
        tags: ["service"],
        operationId: "openApi",
        summary: "This document",
        responses: { "200": { description: "OpenAPI 3.1" } },
      },
    },
  };
  for (const route of GATEWAY_ROUTES)
    paths[`/api${openApiPath(route, config)}`] = { get: gatewayOperation(route, config) };
  Object.assign(paths, onboardingPaths(config, { schema, errorAnswer }));
  const onboardings = onboardingComponents({ schema });

  return {
    openapi: "3.1.0",
    info: {
      title: `Edge gateway and wallet pairing for ${config.chainId}`,
      version,
      description:
        "Cached read queries of the chain's modules, wallet pairing sessions, onboardings handed to the host, and " +
        "the onboarding page's settings. Every error the server makes has the Error shape.",
    },
    servers: [{ url: "/" }],
    tags: [
      { name: "sessions", description: "Wallet pairing sessions (one Durable Object each)" },
      {
        name: "onboardings",
        description:
          "The host handoff: onboardings verified on chain (host API with bearer keys; the customer page's endpoints)",
      },
      { name: "gateway", description: "Cached module queries, proxied to the chain's LCD nodes" },
      { name: "service", description: "Settings, health and this description" },
    ],
    paths,
    components: {
      schemas: { Error: schema(errorBodySchema), SessionRow: schema(sessionRowSchema), ...onboardings.schemas },
      securitySchemes: onboardings.securitySchemes,
    },
  };
}

/** `/{ns}/incentives/v1/node/:operator` → `/chain/incentives/v1/node/{operator}`. */
function openApiPath(route: GatewayRoute, config: Config): string {
  return route.path.replace("{ns}", config.namespace).replace(/:(\w+)/g, "{$1}");
}

function gatewayOperation(route: GatewayRoute, config: Config): Json {
  const kinds = paramSchemas(config.bech32Prefix);
  const described = paramDescriptions(config.bech32Prefix);
  const pathParams = Object.entries(route.params ?? {}).map(([name, kind]) => ({
    name,
    in: "path",
    required: true,
    schema: schema(kinds[kind]),
    description: described[kind],
  }));
  const queryParams = (route.query ?? []).map((name) => ({
    name,
    in: "query",
    required: false,
    schema: schema(QUERY_VALUES[name]),
    description: QUERY_DESCRIPTIONS[name],
  }));
  const height = {
    name: "x-cosmos-block-height",
    in: "header",
    required: false,
    schema: schema(blockHeightSchema),
    description:
      `Read the state at this past block height (forwarded to the node; its answer is kept ` +
      `${HISTORICAL_ANSWER_TTL} s, since a past height never changes)`,
  };
  return {
    tags: ["gateway"],
    operationId: route.path
      .replace("{ns}", "ns")
      .replace(/[/:]+(\w)/g, (_, c: string) => c.toUpperCase())
      .replace(/^\W+/, ""),
    summary: routeNote(route).summary,
    description:
      `Cached for ${route.ttl} s (${routeNote(route).why}); a 4xx answer for ${answerTtl(route, 400, false)} s. ` +
      `Served stale while revalidating and when every upstream fails. Unknown query parameters are refused; the ` +
      `values of known ones go to the node as given.`,
    parameters: [
      ...pathParams,
      ...queryParams,
      height,
      { name: "If-None-Match", in: "header", required: false, schema: { type: "string" } },
    ],
    responses: {
      "200": {
        description: "The upstream node's JSON answer",
        headers: {
          "X-Cache": { schema: { type: "string", pattern: X_CACHE_PATTERN } },
          ETag: { schema: { type: "string" } },
          Age: { schema: { type: "integer" } },
          "x-cosmos-block-height": {
            schema: { type: "string" },
            description: "Block height of the answer (the node's Grpc-Metadata-X-Cosmos-Block-Height)",
          },
        },
        content: json({ type: "object" }),
      },
      "304": { description: "Not modified (If-None-Match)" },
      "400": errorAnswer("Invalid path parameter, query parameter or height (or the node's own refusal)"),
      "404": errorAnswer("Not found (upstream answer, or no such route)"),
      "405": errorAnswer("Method not allowed"),
      "502": errorAnswer("Every upstream failed or answered something that is not JSON"),
      "504": errorAnswer("Upstreams too slow for the time budget"),
    },
  };
}
