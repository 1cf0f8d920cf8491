/** The architecture page's check (scripts/architecture-facts.ts) on the page as it is, and as it once was. */
import { describe, expect, it } from "vitest";
import architecture from "../../docs/ARCHITECTURE.md?raw";
import packageJson from "../../package.json?raw";
import packageLock from "../../package-lock.json?raw";
import { architectureProblems, type ProjectTexts } from "../../scripts/architecture-facts";
import wranglerToml from "../../wrangler.toml?raw";

const today: ProjectTexts = { architecture, wranglerToml, packageJson, packageLock, docs: {} };
const problems = (change: Partial<ProjectTexts>) => architectureProblems({ ...today, ...change });

describe("the architecture page's facts", () => {
  it("holds for the page as it is", () => {
    expect(problems({})).toEqual([]);
  });

  it("catches a page that says there is no database and shows no D1, while D1 is bound", () => {
    const opening = architecture.slice(0, architecture.indexOf("## Request paths"));
    const page = architecture
      .replace(
        opening,
        "# Architecture\n\nOne Worker and its Durable Objects. Nothing else: no database, no queue.\n\n",
      )
      .replace(/\n.*ONBOARDING_INDEX.*(?=\n)/g, "");
    expect(problems({ architecture: page })).toEqual(
      expect.arrayContaining([
        "docs/ARCHITECTURE.md does not name the binding ONBOARDING_INDEX (wrangler.toml's [d1_databases])",
        "docs/ARCHITECTURE.md's diagram does not show ONBOARDING_INDEX (wrangler.toml binds it)",
        'docs/ARCHITECTURE.md says "no database", but wrangler.toml has [[d1_databases]]',
      ]),
    );
  });

  it("catches a library the Worker dropped that the page still names, and one it uses that the page does not", () => {
    const page = architecture.replaceAll("uqr", "@cosmjs/encoding");
    expect(problems({ architecture: page })).toEqual([
      "docs/ARCHITECTURE.md does not name the dependency uqr (package.json)",
      `docs/ARCHITECTURE.md's "Lean Worker" names @cosmjs/encoding, ` +
        "which is not a dependency of the Worker (package.json)",
    ]);
  });

  it("catches a binding or a dependency removed while the page still names it", () => {
    const withoutD1 = wranglerToml.replace(/\[\[d1_databases\]\][^[]*/, "");
    expect(problems({ wranglerToml: withoutD1 })).toEqual(
      expect.arrayContaining([
        "docs/ARCHITECTURE.md's diagram shows D1, which wrangler.toml does not bind",
        "docs/ARCHITECTURE.md names the binding ONBOARDING_INDEX, which wrangler.toml does not have",
      ]),
    );
    const manifest = JSON.parse(packageJson) as { dependencies: Record<string, string> };
    delete manifest.dependencies.uqr;
    expect(problems({ packageJson: JSON.stringify(manifest) })).toEqual([
      `docs/ARCHITECTURE.md's "Lean Worker" names uqr, which is not a dependency of the Worker (package.json)`,
    ]);
  });

  it("catches a scoped package a doc names that is not installed", () => {
    expect(problems({ docs: { "docs/X.md": "uses `@cosmjs/faucet` to sign" } })).toEqual([
      "docs/X.md names the package @cosmjs/faucet, which is not installed (package-lock.json)",
    ]);
  });
});
