export { uniqueName } from './names';
export { testNatsUrl, testLogger } from './services';
export { createTestDatabase, type TestDatabase } from './database';
export { createTestPlatform, type TestPlatform } from './platform';
export {
  startTestRuntime,
  testRuntimes,
  type RuntimeUnderTest,
  type RuntimeKind,
} from './runtimes';
export { eventually } from './eventually';
export { removeNamespaceFromNats } from './nats-namespace';
export {
  startChatCompletionsProvider,
  textReply,
  toolCallReply,
  type ChatCompletionsProvider,
  type ScriptedReply,
} from './chat-completions-provider';
export { openEventStream, readAllEvents, type ServerSentEvent } from './event-streams';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export { testBusKeys, asBusPrincipal, busKeyEnvironment } from './bus-keys';
export { startOwnNats } from './nats-servers';
export { freePort } from './ports';
export { makeTestCertificates } from './certificates';
export { checkoutRelease, type ReleaseCheckout } from './release-checkout';
export {
  startEverythingMcpServer,
  startEverythingProcess,
  forwardTo,
  stopChild,
  BASIC_USER,
  BASIC_PASSWORD,
  type McpTestServer,
} from './everything-mcp-server';
export { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver';
export { createOpenApiConformance, type OpenApiConformance } from './openapi-conformance';
export {
  startConnectedAccountServers,
  type ConnectedAccountServers,
} from './connected-account-servers';
export {
  repositoryRoot,
  runApp,
  runCommand,
  startProcessBus,
  startProcessCluster,
  PROCESS_BUS_KEY_VERSION,
  type ProcessBus,
  type ProcessCluster,
  type RunningProcess,
} from './processes';
