/** The docs' link check (scripts/doc-links.ts), on small sets of pages. */
import { describe, expect, it } from "vitest";
import { anchorsOf, linkProblems } from "../../scripts/doc-links";

const files = new Set(["README.md", "docs/HOSTS.md", "docs/GATEWAY.md", "src/gateway", "wrangler.toml"]);
const check = (docs: Record<string, string>) =>
  linkProblems(
    docs,
    (path) => files.has(path),
    () => null,
  );

describe("the docs' links", () => {
  it("takes links to files, folders and headings that are there, and leaves other sites alone", () => {
    const docs = {
      "README.md":
        "See [hosts](docs/HOSTS.md#2-create-an-onboarding), [the code](src/gateway) and [x](https://x.io/#a).",
      "docs/HOSTS.md": "## 2. Create an onboarding\n\n[config](../wrangler.toml) [up](#2-create-an-onboarding)\n",
      "docs/GATEWAY.md": "[mail](mailto:a@b.c)\n",
    };
    expect(check(docs)).toEqual([]);
  });

  it("names a link to a file that is not there, and to a heading its page does not have", () => {
    const docs = {
      "README.md": "[gone](docs/GONE.md)\n\n[section](docs/HOSTS.md#3-send)",
      "docs/HOSTS.md": "## 2. Create an onboarding\n",
    };
    expect(check(docs)).toEqual([
      "README.md:1: the link to docs/GONE.md names docs/GONE.md, which does not exist",
      "README.md:3: the link to docs/HOSTS.md#3-send names a section docs/HOSTS.md does not have",
    ]);
  });

  it("reads no link in code, and no heading in a fenced block", () => {
    const docs = {
      "README.md": "```sh\n# 1. not a heading\necho [a](gone.md)\n```\n`[b](gone.md)` [c](#1-not-a-heading)\n",
    };
    expect(check(docs)).toEqual(["README.md:5: the link to #1-not-a-heading names a section README.md does not have"]);
  });

  it("gives headings GitHub's anchors: code and punctuation dropped, repeats numbered", () => {
    expect([...anchorsOf("## 3. Send your customer to `url`\n## Deploy\n## Deploy\n## 9. Catch up: the feed")]).toEqual(
      ["3-send-your-customer-to-url", "deploy", "deploy-1", "9-catch-up-the-feed"],
    );
  });
});
