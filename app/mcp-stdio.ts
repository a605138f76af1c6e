import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { privateKeyToAccount } from 'viem/accounts'
import { ConfigError, parse } from './config.js'
import { mcpServer } from './mcp.js'

// The MCP server over stdio (`npm run mcp`): the tools of a running gateway at GATEWAY_URL (default
// http://127.0.0.1:3402), paid from MCP_PRIVATE_KEY within MCP_MAX_PER_CALL and MCP_SESSION_BUDGET. Logs go to stderr:
// stdout carries the protocol.

const config = (() => {
  try {
    return parse(process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
})()
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3402'
const { server } = mcpServer({
  gateway,
  fetch: globalThis.fetch,
  payer: config.mcp.privateKey ? privateKeyToAccount(config.mcp.privateKey) : undefined,
  maxPerCall: config.mcp.maxPerCall,
  sessionBudget: config.mcp.sessionBudget,
})
await server.connect(new StdioServerTransport())
process.stderr.write(`MCP server on stdio for ${gateway}\n`)
