// The image's HEALTHCHECK: GET /healthz of the process the image runs. The gateway and the
// embedded runtime serve it on their HTTP port (PORT), every other service on HEALTH_PORT; the
// admin image runs one-off commands and has nothing to check.
const app = process.env.APP;
if (app === 'admin') process.exit(0);
const port = app === 'gateway' || app === 'embedded' ? process.env.PORT : process.env.HEALTH_PORT;
fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2500) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
