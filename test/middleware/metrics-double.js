// The Analytics Engine dataset as the runtime tests see it (vitest.config.ts binds GATEWAY_METRICS here):
// the local dataset keeps nothing it is given, so this one keeps every data point it receives, in order,
// and answers them at GET / (DELETE / forgets them).
import { WorkerEntrypoint } from "cloudflare:workers";

const points = [];

export class MetricsDataset extends WorkerEntrypoint {
  writeDataPoint(point) {
    points.push(point ?? {});
  }
}

export default {
  fetch(request) {
    if (request.method === "DELETE") points.length = 0;
    return Response.json(points);
  },
};
