/**
 * Telemetry starts once per process. The OpenTelemetry API ignores a second global registration,
 * and tracers obtained before a restart (`trace.getTracer` at module load, as in
 * `@wap/platform`) keep delegating to the first provider for good, so a second start would
 * silently lose spans. Both ways of starting telemetry take this claim and fail loudly instead.
 */
let owner: string | undefined;

export function claimGlobalTelemetry(claimant: string): void {
  if (owner !== undefined) {
    throw new Error(
      `${claimant}: telemetry was already started in this process by ${owner}; start it once`,
    );
  }
  owner = claimant;
}
