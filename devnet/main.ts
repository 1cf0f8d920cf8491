/**
 * `node devnet/main.ts`: the devnet on 127.0.0.1:$DEVNET_PORT (default 1317) until interrupted.
 * DEVNET_HEIGHT_HEADER=bare sends the height as a renaming proxy would (default: grpc-metadata).
 */
import { parseHeightHeaderForm, type HeightHeaderForm } from "./block-height.ts";
import { startDevnet } from "./server.ts";

const port = Number(process.env.DEVNET_PORT ?? 1317);
let heightHeader: HeightHeaderForm;
try {
  heightHeader = parseHeightHeaderForm(process.env.DEVNET_HEIGHT_HEADER);
} catch (err) {
  console.error(`devnet: DEVNET_HEIGHT_HEADER: ${(err as Error).message}`);
  process.exit(1);
}
try {
  const devnet = await startDevnet({ port, host: process.env.DEVNET_HOST ?? "127.0.0.1", heightHeader });
  console.log(`devnet: local LCD stand-in on ${devnet.url} (development only; Ctrl-C stops it)`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => void devnet.close().then(() => process.exit(0)));
  }
} catch (err) {
  if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
    console.error(`devnet: port ${port} is already in use; stop what holds it or set DEVNET_PORT`);
    process.exit(1);
  }
  throw err;
}
