/** What a bare workerd needs from wrangler.toml, read by wrangler's own config reader (so it parses as deploy does). */
import { unstable_readConfig } from "wrangler";

export interface WorkerSettings {
  compatibilityDate: string;
  compatibilityFlags: string[];
  /** [vars]; non-string values stay JSON. */
  vars: Record<string, unknown>;
  durableObjects: { binding: string; className: string; sql: boolean }[];
}

export function readWorkerSettings(configPath = "wrangler.toml"): WorkerSettings {
  const config = unstable_readConfig({ config: configPath });
  if (!config.compatibility_date) throw new Error(`${configPath} has no compatibility_date`);
  const sqlClasses = new Set(
    config.migrations.flatMap((m: { new_sqlite_classes?: string[] }) => m.new_sqlite_classes ?? []),
  );
  return {
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
    vars: config.vars,
    durableObjects: config.durable_objects.bindings.map((b: { name: string; class_name: string }) => ({
      binding: b.name,
      className: b.class_name,
      sql: sqlClasses.has(b.class_name),
    })),
  };
}
