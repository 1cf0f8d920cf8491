/**
 * The host's dashboard (public/dashboard/): the session check first, then the sign-in or the
 * views, chosen by the location's hash (#/, #/new, #/onboardings/<id>, #/webhook, #/gateway). Everything it
 * shows comes from the host API with the session cookie; every text is set as text.
 */
import { el, show } from "../dom.ts";
import { call, whenSignedOut } from "./api.ts";
import { showCreate } from "./create.ts";
import { showDetail } from "./detail.ts";
import { showGateway } from "./gateway.ts";
import { firstPage, showList } from "./list.ts";
import { showOverview } from "./overview.ts";
import { showSignIn } from "./sign-in.ts";
import { problem } from "./view.ts";

interface Session {
  via: "key" | "access";
  expires_at: string;
  webhook_configured: boolean;
}

const main = document.getElementById("view")!;
const account = document.getElementById("account")!;
const nav = document.getElementById("nav")!;
let session: Session | null = null;

function route(first?: ReturnType<typeof firstPage>): void {
  if (!session) return;
  const hash = location.hash;
  for (const link of nav.querySelectorAll("a"))
    link.toggleAttribute("aria-current", link.getAttribute("href") === (hash || "#/"));
  const detail = /^#\/onboardings\/(ob_[0-9a-f]{32})$/.exec(hash);
  if (detail) void showDetail(main, detail[1]!);
  else if (hash === "#/new") showCreate(main);
  else if (hash === "#/webhook") void showOverview(main, session.webhook_configured);
  else if (hash === "#/gateway") showGateway(main);
  else showList(main, first);
}

function signedIn(current: Session, first?: ReturnType<typeof firstPage>): void {
  session = current;
  nav.hidden = false;
  const signOut = el("button", { type: "button", class: "link-button" }, "Sign out");
  signOut.addEventListener("click", async () => {
    await call("/dashboard/sign-out", { method: "POST" }).catch(() => undefined);
    signedOutView(current.via, "");
  });
  show(
    account,
    el("span", { class: "muted" }, `Signed in until ${current.expires_at.slice(11, 16)} UTC`),
    " ",
    signOut,
  );
  route(first);
}

function signedOutView(via: "key" | "access", reason: string): void {
  session = null;
  nav.hidden = true;
  show(account);
  showSignIn(main, via, reason, () => void start());
}

async function start(): Promise<void> {
  // The list's first page goes out beside the session check (one round trip, not two, before the list shows);
  // signed out, its 401 is dropped.
  const first = /^#?\/?$/.test(location.hash) ? firstPage() : undefined;
  first?.catch(() => undefined);
  try {
    signedIn(await call<Session>("/dashboard/session"), first);
  } catch (failure) {
    const f = failure as { status?: number; reason?: string; metadata?: Record<string, string> };
    if (f.status === 401) signedOutView(f.metadata?.sign_in === "access" ? "access" : "key", f.reason ?? "");
    else show(main, problem(failure, "The dashboard could not start; reload the page"));
  }
}

whenSignedOut((failure) => {
  if (session) signedOutView(failure.metadata.sign_in === "access" ? "access" : "key", failure.reason);
});
window.addEventListener("hashchange", () => route());
void start();
