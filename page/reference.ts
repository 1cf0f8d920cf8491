/**
 * The API reference page (`/reference/`): renders this deployment's `/api/openapi.json` as
 * plain HTML, with no third-party viewer, so it obeys the same CSP as the onboarding page.
 */
import { el, show } from "./dom.ts";

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: unknown;
}
interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string }>;
}
interface Document {
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
}

function operationView(method: string, path: string, op: Operation): HTMLElement {
  const params = op.parameters ?? [];
  const body = op.requestBody?.content["application/json"]?.schema;
  return el(
    "article",
    { class: "operation" },
    el("h3", {}, el("code", {}, `${method.toUpperCase()} ${path}`)),
    el("p", {}, op.summary ?? ""),
    op.description ? el("p", { class: "muted" }, op.description) : null,
    params.length
      ? el(
          "table",
          {},
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", {}, "parameter"),
              el("th", {}, "in"),
              el("th", {}, "required"),
              el("th", {}, "about"),
            ),
          ),
          el(
            "tbody",
            {},
            ...params.map((p) =>
              el(
                "tr",
                {},
                el("td", {}, el("code", {}, p.name)),
                el("td", {}, p.in),
                el("td", {}, p.required ? "yes" : "no"),
                el("td", {}, p.description ?? ""),
              ),
            ),
          ),
        )
      : null,
    body
      ? el("details", {}, el("summary", {}, "Request body (JSON Schema)"), el("pre", {}, JSON.stringify(body, null, 2)))
      : null,
    el(
      "ul",
      { class: "responses" },
      ...Object.entries(op.responses).map(([status, r]) => el("li", {}, el("code", {}, status), ` ${r.description}`)),
    ),
  );
}

async function main(): Promise<void> {
  const root = document.getElementById("reference")!;
  let doc: Document;
  try {
    const response = await fetch("/api/openapi.json");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    doc = (await response.json()) as Document;
  } catch (err) {
    show(
      root,
      el(
        "p",
        { class: "error", role: "alert" },
        `The API description could not be loaded (${String(err)}). Reload the page to try again.`,
      ),
    );
    return;
  }
  document.title = `API reference: ${doc.info.title}`;
  const sections = (doc.tags ?? []).map((tag) => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.tags?.includes(tag.name))
        .map(([method, op]) => operationView(method, path, op)),
    );
    return el(
      "section",
      { "aria-labelledby": `tag-${tag.name}` },
      el("h2", { id: `tag-${tag.name}` }, tag.name),
      el("p", { class: "muted" }, tag.description ?? ""),
      ...operations,
    );
  });
  show(
    root,
    el(
      "p",
      {},
      `${doc.info.title}, version ${doc.info.version}. `,
      el("a", { href: "/api/openapi.json" }, "OpenAPI 3.1 document"),
    ),
    doc.info.description ? el("p", { class: "muted" }, doc.info.description) : null,
    ...sections,
  );
}

void main();
