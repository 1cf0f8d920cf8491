/**
 * `npm run devnet`: the devnet on 127.0.0.1:$DEVNET_PORT (default 1317) until interrupted.
 * DEVNET_HEIGHT_HEADER=bare sends the height as a renaming proxy would (default: grpc-metadata);
 * DEVNET_BLOCK_MS sets the block time (default 2000).
 */
import { parseHeightHeaderForm, type HeightHeaderForm } from "./block-height.ts";
import { startDevnet } from "./server.ts";

const port = Number(process.env.DEVNET_PORT ?? 1317);
const blockMs = Number(process.env.DEVNET_BLOCK_MS ?? 2000);
if (!Number.isInteger(blockMs) || blockMs < 1) {
  console.error(
    `devnet: DEVNET_BLOCK_MS must be a whole number of milliseconds, got ${JSON.stringify(process.env.DEVNET_BLOCK_MS)}`,
  );
  process.exit(1);
}
let heightHeader: HeightHeaderForm;
try {
  heightHeader = parseHeightHeaderForm(process.env.DEVNET_HEIGHT_HEADER);
} catch (err) {
  console.error(`devnet: DEVNET_HEIGHT_HEADER: ${(err as Error).message}`);
  process.exit(1);
}
try {
  const devnet = await startDevnet({ port, host: process.env.DEVNET_HOST ?? "127.0.0.1", heightHeader, blockMs });
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
