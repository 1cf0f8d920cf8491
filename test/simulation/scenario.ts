/**
 * What a seed makes happen: how many onboardings, and for each when the host creates it (some
 * through an Idempotency-Key, sent twice), pairs a wallet (a relayed pairing session the wallet
 * confirms, with or without the page still there, or the wallet app's own pairing), authorizes on
 * chain (and whether the page claims the transaction), has its node applied, is cancelled or read;
 * wallets that confirm for onboardings that were cancelled, expired or took another wallet; and
 * the host's retry of given-up events. Every call is an outside caller's RPC to the real objects.
 */
import { toBech32 } from "@cosmjs/encoding";
import type { NewOnboarding } from "../../src/onboardings/machine";
import type { SessionAnswer } from "../../src/sessions/machine";
import { onboardingsWithGivenUpEvents } from "../../src/onboardings/index/store";
import { planFaults, type Profile, slowGiveUps } from "./faults";
import { Kernel, Random } from "./kernel";
import { LiveCrowd } from "./live-clients";
import { calmLive, planLiveFaults } from "./live-faults";
import { RECEIVER_URL } from "./services";
import { type IndexHost, World } from "./world";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** ONBOARDING_TTL of the world (./world.ts). */
const TTL_MS = 10 * MINUTE;

/** 2026-11-25T00:00:00Z: any fixed start will do. */
export const START = Date.UTC(2026, 10, 25);

/** A wallet's confirm of a bound session, and what it was answered. */
export interface Confirm {
  at: number;
  session: string;
  onboarding: string;
  address: string;
  status: number | null;
}

/**
 * What a seed's world is like: mostly a few onboardings under passing faults; one in twelve with a
 * receiver down for days; one in five with a receiver refusing one onboarding's events; one in
 * twenty-five with a receiver answering 401 to everything; and, one in fifty, a crowd held by a
 * receiver dead for good (with `crowds`; a few onboardings under a receiver down for days otherwise).
 */
function chooseProfile(random: Random, crowds: boolean): Profile {
  const r = random.next();
  if (r < 0.02) {
    const onboardings = crowds ? random.int(880, 1000) : random.int(1, 6);
    return { onboardings, receiverDown: crowds ? "for good" : "days", refusing: false, crowd: crowds };
  }
  if (r < 0.08) return { onboardings: random.int(1, 6), receiverDown: "days", refusing: false };
  if (r < 0.12) return { onboardings: random.int(1, 4), receiverDown: null, refusing: false, unauthorized: true };
  if (r < 0.32) return { onboardings: random.int(2, 6), receiverDown: null, refusing: true };
  return { onboardings: random.int(1, 6), receiverDown: null, refusing: false };
}

/** The profile of `seed`'s world (its first draws), without building the world. */
export function profileOf(seed: number, crowds = true, random = new Random(seed)): Profile {
  const chosen = chooseProfile(random, crowds);
  return slowGiveUps(seed, chosen) ? { ...chosen, slowGiveUps: true } : chosen;
}

/** Subscriber shards per network (src/gateway/live/limits.ts's LIVE_SHARDS, as the door spreads sockets over them). */
const LIVE_SHARDS = 16;

/**
 * Builds the world of `seed` with its whole schedule queued; with `live`, the live face's crowd and faults too,
 * drawn from a random source of their own (the seed's other draws stay as they were).
 */
export function buildWorld(seed: number, index: IndexHost, crowds = true, live = false) {
  const random = new Random(seed);
  const kernel = new Kernel(START, random);
  const profile = profileOf(seed, crowds, random);
  const ids = Array.from({ length: profile.onboardings }, (_, i) => `ob_${i + 1}`);
  const faults = planFaults(random, START, profile, ids, seed);
  const liveRandom = new Random(seed ^ 0x11fe);
  const liveFaults = live ? planLiveFaults(liveRandom, START, LIVE_SHARDS) : calmLive(START);
  const world = new World(kernel, START, faults, index, liveFaults);
  const crowd = live ? new LiveCrowd(world, liveFaults.leaveAt) : null;
  crowd?.plan(liveRandom, START, liveFaults.feedRefusals);
  const chainIdOf = () => String((world.env as unknown as Record<string, string>).CHAIN_ID);
  for (const at of liveFaults.feedRestarts) kernel.at(at, () => world.feeds.objects.get(chainIdOf())?.evict("restart"));
  for (const { at, shard } of liveFaults.shardRestarts)
    kernel.at(at, () => world.shards.objects.get(`${chainIdOf()}:${shard}`)?.evict("restart"));
  const confirms: Confirm[] = [];
  const vars = world.env as unknown as Record<string, string>;
  const chainId = String(vars.CHAIN_ID);
  /** The world's accounts: valid addresses of the network's prefix, one per role and onboarding. */
  const address = (role: number, i: number) =>
    toBech32(
      vars.BECH32_PREFIX ?? "hope",
      Uint8Array.from({ length: 20 }, (_, k) => [role, i >> 8, i & 255][k] ?? k),
    );

  /** An outside caller's RPC at `at`, traced; its answer (or failure) given to `then`. */
  const call = (at: number, id: string, what: string, send: () => Promise<unknown>, then?: (answer: unknown) => void) =>
    kernel.at(at, () => {
      world.trace(`${id} ${what}`);
      send().then(
        (answer) => {
          const refusal = answer as { status?: number; reason?: string } | null;
          if (refusal && typeof refusal === "object" && "reason" in refusal)
            world.trace(`${id} ${what}: ${refusal.status} ${refusal.reason}`);
          then?.(answer);
        },
        (error: unknown) => {
          world.trace(`${id} ${what} failed: ${String(error)}`);
          then?.(null);
        },
      );
    });
  const ob =
    (id: string, method: string, ...args: unknown[]) =>
    () =>
      world.onboardings.call(id, method, args);

  const spread = profile.onboardings > 20 ? 10 * MINUTE : 3 * MINUTE;
  let sessions = 0;
  for (const [i, id] of ids.entries()) {
    const operator = address(1, i);
    const created = START + random.int(0, spread);
    const input: NewOnboarding = {
      id,
      operator,
      label: "",
      reference: `order-${i + 1}`,
      origin: "https://edge.test",
      return_url: null,
    };
    if (random.chance(0.3)) {
      // The host sends an Idempotency-Key, and sends the create again (a retry after a lost answer).
      const key = () => world.keys.call(`key_${id}`, "createOnce", [`hash-${id}`, input]);
      call(created, id, "created (with a key)", key);
      call(created + random.int(0, 30 * SECOND), id, "created again (same key)", key);
    } else call(created, id, "created", ob(id, "create", input));
    if (profile.crowd) {
      // A crowd: each onboarding ends at once, so each holds one event behind the dead receiver.
      call(created + random.int(1, 60) * SECOND, id, "cancelled by the host", ob(id, "cancel"));
      continue;
    }
    if (random.chance(0.1)) call(created + random.int(0, TTL_MS), id, "cancelled by the host", ob(id, "cancel"));
    for (let r = random.int(0, 2); r > 0; r--) call(created + random.int(0, 2 * TTL_MS), id, "read", ob(id, "read"));
    if (!random.chance(0.9)) continue;
    const paired = created + random.int(5 * SECOND, 2 * MINUTE);
    const payout = random.chance(0.1) ? operator : address(2, i);
    /** A pairing session bound to this onboarding, confirmed by `address` at `at`; the page pairs after if there. */
    const session = (at: number, address: string, pageThere: boolean) => {
      const sid = `cs_${++sessions}`;
      const expires_at = new Date(at - 5 * SECOND + TTL_MS).toISOString();
      const create = { session_id: sid, chain_id: chainId, origin: "https://edge.test", expires_at, onboarding_id: id };
      call(at - 5 * SECOND, sid, `created for ${id}`, () => world.sessions.call(sid, "create", [create]));
      const proof = { session_id: sid, address, pubkey_base64: btoa(address), account_label: null };
      call(
        at,
        sid,
        `confirmed by ${address}${pageThere ? "" : " (the page is gone)"}`,
        () => world.sessions.call(sid, "confirm", [proof]),
        (answer) => {
          const status = (answer as SessionAnswer | null)?.status ?? null;
          confirms.push({ at: kernel.now, session: sid, onboarding: id, address, status });
          world.trace(`${sid} the wallet was answered ${status ?? "nothing (failed)"}`);
        },
      );
      if (pageThere)
        call(at + random.int(100, 3 * SECOND), id, `paired by the page (${sid})`, ob(id, "pair", { sessionId: sid }));
    };
    if (random.chance(0.2))
      call(
        paired,
        id,
        `paired in the wallet app with ${payout}`,
        ob(id, "pair", { address: payout, source: "in_app" }),
      );
    else session(paired, payout, random.chance(0.6));
    // Another wallet confirms a session of this onboarding later: it is paired, cancelled or expired by then.
    if (random.chance(0.15)) session(paired + random.int(10 * SECOND, 2 * TTL_MS), address(3, i), false);
    let next = paired;
    if (payout !== operator) {
      if (!random.chance(0.85)) continue;
      next = paired + random.int(5 * SECOND, 2 * MINUTE);
      const claims = random.chance(0.5);
      kernel.at(next, () => {
        const { height, txhash } = world.chain.authorize(payout, operator);
        world.trace(`${id} authorization in block ${height}`);
        if (claims)
          call(kernel.now + random.int(0, 3 * SECOND), id, `claims ${txhash.slice(0, 8)}…`, () =>
            world.onboardings.call(id, "claimAuthorization", [txhash]),
          );
      });
    }
    if (!random.chance(0.85)) continue;
    const applied = next + random.int(5 * SECOND, 3 * MINUTE);
    kernel.at(applied, () =>
      world.trace(`${id} node pays ${payout} from block ${world.chain.applyNode(operator, payout)}`),
    );
  }
  // The host's retry (POST /api/webhook/retry): the lane tries now, and every given-up event is sent again.
  const end = faults.receiverFaultEnd();
  const retries = [
    ...(random.chance(0.2) ? [START + random.int(5 * MINUTE, HOUR)] : []),
    ...(end !== null && end !== Infinity && end > START + 3 * 24 * HOUR ? [end + random.int(MINUTE, 6 * HOUR)] : []),
  ];
  const retry = async () => {
    await world.lanes.call(RECEIVER_URL, "retryNow", []);
    for (const id of await onboardingsWithGivenUpEvents(world.d1 as unknown as D1Database, 500))
      await world.onboardings.call(id, "resend", []);
  };
  for (const at of retries) call(at, "host", "asks to retry the webhook", retry);
  // A watchful host: around the first give-ups it polls its index every few seconds, and retries once it lists one.
  // (The slow give-ups always have one: the chance is still drawn, so the other draws stay as they were.)
  if (profile.receiverDown === "days" && (random.chance(0.5) || profile.slowGiveUps)) {
    const poll = (at: number, until: number) =>
      kernel.at(at, () => {
        if (kernel.now > until) return;
        onboardingsWithGivenUpEvents(world.d1 as unknown as D1Database, 1).then(
          (ids) => {
            if (ids.length === 0) return poll(kernel.now + random.int(3, 10) * SECOND, until);
            world.trace(`host sees ${ids[0]} given up, and asks to retry the webhook`);
            retry().then(
              () => poll(kernel.now + random.int(3, 10) * SECOND, until),
              () => poll(kernel.now + random.int(3, 10) * SECOND, until),
            );
          },
          () => poll(kernel.now + random.int(3, 10) * SECOND, until),
        );
      });
    poll(START + 3 * 24 * HOUR - 10 * MINUTE, START + 3 * 24 * HOUR + 2 * HOUR);
  }
  // With D1 slow around the give-ups, the host's dashboard also reads each onboarding every 2 to 6 s meanwhile (a read
  // is an RPC that, like any, takes up an index write whose lease ran out): timed by a random source of its own.
  if (profile.slowGiveUps) {
    const reads = new Random(seed ^ 0x51d3);
    for (const id of ids)
      for (let at = START + 3 * 24 * HOUR - 5 * MINUTE; at < START + 3 * 24 * HOUR + 30 * MINUTE; )
        kernel.at((at += reads.int(2, 6) * SECOND), () => void world.onboardings.call(id, "read", []).catch(() => {}));
  }
  return { world, profile, confirms, crowd };
}
