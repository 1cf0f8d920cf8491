/**
 * The live face's invariants, read from outside the objects: the frames each subscriber's client
 * end got (./live-clients.ts), the follower's stored cursor, the shards' own `state()` where they
 * have one.
 *
 * - `subscriber`: every honest subscription sees every height at most once and in order, with no
 *   height skipped, and, from its subscribe on, every height until it leaves, or a cancel
 *   (`-32000 subscription was canceled`); a subscribe answered `{}` is fed.
 * - `compiled`: once every client has left, no shard holds a subscription or a compiled query.
 * - `follower-head`: the follower's head never goes back, and never stays behind the chain by 3
 *   blocks or more for more than a minute while onboardings wait (outside the windows in which the
 *   LCD nodes lag or fail, no CometBFT node is up and level, so the feed itself is behind, or the
 *   follower cannot be reached).
 */
import type { FollowerCursor } from "../../src/chain-follower/machine";
import { clock } from "./faults";
import type { Violation } from "./invariants";
import type { LiveCrowd } from "./live-clients";
import { RPC_NODE_URLS } from "./sim-node";
import type { World } from "./world";

const BLOCK_MS = 5_000;
/** A subscription still there when its client leaves has every height the chain made until this long before. */
const CAUGHT_UP_MS = 30_000;
/** The follower may trail the chain by fewer blocks than this (a pass in flight, a block being made). */
const BEHIND_BLOCKS = 3;
/** …and by more only this long. */
const BEHIND_MS = 60_000;

const headAt = (world: World, at: number) => 1 + Math.floor((at - world.chain.genesis) / BLOCK_MS);

/** The subscribers' frames, once every client has left. */
export function checkSubscribers(world: World, crowd: LiveCrowd): Violation[] {
  const out: Violation[] = [];
  const say = (message: string) => out.push({ invariant: "subscriber", message });
  const at = (t: number) => clock(t - world.start);
  for (const client of crowd.clients) {
    if (client.honest && client.socket?.closed && client.socket.closed.at < crowd.leaveAt)
      say(
        `${client.name}: the shard closed an honest subscriber's socket at ${at(client.socket.closed.at)}` +
          ` (${client.socket.closed.code} ${client.socket.closed.reason})`,
      );
  }
  const feedRestarts = (from: number, to: number) =>
    [...world.feeds.objects.values()].flatMap((f) => f.evictions).filter((t) => t >= from && t <= to);
  const clientOf = new Map(crowd.clients.map((c) => [c.name, c]));
  /** What else its shard held or saw: a hostile subscription answered {}, a subscribe refused for want of the feed. */
  const shardNotes = (client: string, before: number) => {
    const shard = clientOf.get(client)?.shard;
    if (!shard) return "";
    const notes: string[] = [];
    for (const other of crowd.subscriptions.values()) {
      const owner = clientOf.get(other.client);
      if (owner?.shard !== shard || other.client === client) continue;
      if (!other.honest && other.answeredAt !== null && other.answeredAt <= before)
        notes.push(`${other.client}'s hostile "${other.query}" was answered {} on it at ${at(other.answeredAt)}`);
      if (other.refused?.includes("live feed") && Math.abs(other.sentAt - before) < 60_000)
        notes.push(`${other.client}'s subscribe on it was refused at ${at(other.sentAt)} (${other.refused})`);
    }
    return notes.length > 0 ? `; its shard ${shard}: ${notes.slice(0, 2).join("; ")}` : `; its shard ${shard}`;
  };
  /** A hostile subscription answered {} on the client's shard and still there between `from` and `to`. */
  const hostileNote = (client: string, from: number, to: number) => {
    const shard = clientOf.get(client)?.shard;
    for (const other of crowd.subscriptions.values()) {
      if (other.honest || other.answeredAt === null || other.answeredAt > to) continue;
      if (clientOf.get(other.client)?.shard !== shard || (other.endedAt ?? Infinity) < from) continue;
      const when = at(other.answeredAt);
      return `; ${other.client}'s hostile "${other.query}" was answered {} on its shard ${shard} at ${when}`;
    }
    return "";
  };
  for (const sub of crowd.subscriptions.values()) {
    if (!sub.honest || sub.answeredAt === null) continue;
    const heights = sub.heights;
    for (let i = 1; i < heights.length; i++) {
      const [a, b] = [heights[i - 1]!, heights[i]!];
      if (b.height <= a.height)
        say(
          `${sub.client}: ${sub.id} (${sub.query}) got height ${b.height} at ${at(b.at)}` +
            ` after height ${a.height} (${b.height === a.height ? "twice" : "out of order"})`,
        );
      else if (b.height > a.height + 1)
        say(
          `${sub.client}: ${sub.id} (${sub.query}) got height ${b.height} at ${at(b.at)} right after ${a.height}:` +
            ` ${b.height - a.height - 1} heights skipped with no cancel` +
            (feedRestarts(a.at, b.at).length > 0
              ? ` (the feed restarted at ${feedRestarts(a.at, b.at).map(at).join(", ")})`
              : "") +
            hostileNote(sub.client, a.at, b.at),
        );
    }
    const stayed = sub.cancelledAt === null && (sub.endedAt === null || sub.endedAt >= crowd.leaveAt);
    if (!stayed) continue;
    const owed = headAt(world, crowd.leaveAt - CAUGHT_UP_MS);
    const last = heights[heights.length - 1]?.height ?? null;
    if (last === null)
      say(
        `${sub.client}: ${sub.id} (${sub.query}) was answered {} at ${at(sub.answeredAt)} and never got a height` +
          ` (the chain reached ${owed} by ${at(crowd.leaveAt - CAUGHT_UP_MS)}), with no cancel` +
          shardNotes(sub.client, sub.answeredAt),
      );
    else if (last < owed)
      say(
        `${sub.client}: ${sub.id} (${sub.query}) got its last height, ${last},` +
          ` at ${at(heights[heights.length - 1]!.at)};` +
          ` the chain reached ${owed} by ${at(crowd.leaveAt - CAUGHT_UP_MS)}, and no cancel came` +
          shardNotes(sub.client, heights[heights.length - 1]!.at + BLOCK_MS),
      );
  }
  return out;
}

/**
 * Once every client has left: each shard's own account (`state()`, where the class has it) holds no
 * subscription and no compiled query. Returns null when the shards give no account (the check cannot be made).
 */
export async function checkCompiled(world: World): Promise<Violation[] | null> {
  const out: Violation[] = [];
  let observed = false;
  for (const [name, object] of world.shards.objects) {
    if (object.storage.size === 0 && object.sockets.size === 0 && !object.inc) continue;
    let state: { subscriptions?: number; queries?: number } | null;
    try {
      state = (await world.shards.call(name, "state", [])) as { subscriptions?: number; queries?: number } | null;
    } catch (error) {
      if (String(error).includes("has no method state")) return null;
      continue;
    }
    observed = true;
    if ((state?.queries ?? 0) > 0 || (state?.subscriptions ?? 0) > 0)
      out.push({
        invariant: "compiled",
        message:
          `shard ${name}: every client has left, and it still holds ${state?.subscriptions} subscriptions` +
          ` and ${state?.queries} compiled queries`,
      });
  }
  return observed ? out : null;
}

/** Watches the follower's head while the world runs: it never goes back, and never trails for more than a minute. */
export function watchFollowerHead(world: World, until: number): Violation[] {
  const out: Violation[] = [];
  const kernel = world.kernel;
  let lastHead: number | null = null;
  let behindSince: number | null = null;
  let told = false;
  world.onFollowerCursor = (cursor: FollowerCursor) => {
    if (cursor.head === null) {
      lastHead = null;
      return;
    }
    if (lastHead !== null && cursor.head < lastHead)
      out.push({
        invariant: "follower-head",
        message: `follower: its head went back from ${lastHead} to ${cursor.head} at ${world.at(kernel.now)}`,
      });
    lastHead = Math.max(lastHead ?? 0, cursor.head);
  };
  /** Whether, at some time in [from, to], no CometBFT node was up and level: the feed itself was behind the chain. */
  const noLevelRpcNode = (from: number, to: number) => {
    for (let at = from; at <= to; at += BLOCK_MS)
      if (
        !RPC_NODE_URLS.some(
          (_, i) => !world.live.down(i, at) && !world.live.stalled(i, at) && world.live.lag(i, at) < BEHIND_BLOCKS,
        )
      )
        return true;
    return false;
  };
  const excused = (from: number, to: number) =>
    world.faults.lcdTroubleDuring(from, to) ||
    noLevelRpcNode(from, to) ||
    world.follower.evictions.some((t) => t >= from && t <= to);
  const sample = () => {
    const now = kernel.now;
    const cursor = world.follower.storage.get("cursor") as FollowerCursor | undefined;
    const waiting = [...world.follower.storage.keys()].some((k) => k.startsWith("w:"));
    const behind = waiting && cursor?.head != null && headAt(world, now) - cursor.head >= BEHIND_BLOCKS;
    if (!behind) behindSince = null;
    else if (behindSince === null) behindSince = now;
    else if (now - behindSince > BEHIND_MS && !told && !excused(behindSince - BEHIND_MS, now)) {
      told = true;
      out.push({
        invariant: "follower-head",
        message:
          `follower: its head has stayed at ${cursor!.head} since ${world.at(behindSince)} while the chain moved on` +
          ` (at ${headAt(world, now)} by ${world.at(now)})`,
      });
    }
    if (now < until) kernel.after(BLOCK_MS, sample, true);
  };
  kernel.at(world.start + BLOCK_MS, sample, true);
  return out;
}
