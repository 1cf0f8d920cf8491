/**
 * "The node pays the payout" comes from the node's own record read at a height, never from the
 * authorization's: an `authorized` onboarding whose node still pays another address is not paying,
 * though its authorization and its node were read at the same height.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { nodePaysPayoutAt, onboardingViewSchema } from "../../src/protocol/index";
import { createOnboarding, devnetNode, page, readOnboarding, settle } from "./helpers";

/** The host's view of onboarding `id`, as its schema reads it. */
const hostView = async (id: string) => z.parse(onboardingViewSchema, await readOnboarding(id));

describe("whether an onboarding's node pays its payout", () => {
  it("is not so for an authorized onboarding whose node still pays another address", async () => {
    // A node that pays an address of its own; the payout is the operator itself, so nothing waits for a wallet.
    const node = await devnetNode("paying-authorized-payout");
    const created = await createOnboarding({ operator: node.operator });
    await page.payout(created.id, { source: "in_app", address: node.operator });
    await settle(created.id);
    const authorized = await hostView(created.id);
    expect(authorized.status).toBe("authorized");
    expect(authorized.node).toMatchObject({ payout_recipient: node.payout_recipient, height: expect.any(Number) });
    expect(authorized.commands?.update_node).toContain(node.operator);
    expect(nodePaysPayoutAt(authorized)).toBeNull();
  });

  it("is so, at the height its record was read, once the node's record names the payout", async () => {
    const node = await devnetNode("paying-itself");
    const created = await createOnboarding({ operator: node.operator });
    await page.payout(created.id, { source: "in_app", address: node.operator });
    await settle(created.id);
    const applied = await hostView(created.id);
    expect(applied.status).toBe("applied");
    expect(nodePaysPayoutAt(applied)).toBe(applied.node.height);
    expect(nodePaysPayoutAt({ payout: applied.payout, node: { height: applied.node.height } })).toBeNull();
    expect(nodePaysPayoutAt({ payout: null, node: applied.node })).toBeNull();
  });
});
