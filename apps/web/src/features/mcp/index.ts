export { mcpFeature } from './mcp-feature';
