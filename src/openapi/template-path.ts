/** Where the OpenAPI template is among the assets: the build writes it there, the Worker fetches it from there. */
export const OPENAPI_TEMPLATE_PATH = "/api/openapi.template.json";
