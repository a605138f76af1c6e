/**
 * Every tool of the original gateway's MCP server (plagtech/spraay-x402-mcp: src/index.ts at 417ea0a, its hand-written
 * tools, and src/auto-tools.ts at 327cfc7, the tools its sync script generates) as the request its handler builds from
 * a sample of the tool's arguments, in the tool's own words: the method, the path, and the query or JSON body it sends
 * through @x402/axios. The generated tools that take their query or body as a JSON string (`params`, `body`) are given
 * here with that string already parsed, as their handlers send it. Listed in the order an agent would call them, so
 * that a tool that names a record (an invoice, an escrow, a webhook) follows the tool that made it.
 *
 * In a string, `{name}` stands for a value of the replay: `payer` (the MCP server's wallet), `other` and `third` (two
 * other wallets), `usdc` (the settlement token's contract), `pages` (a local site the calls may point at), `settlement`
 * (the transaction of the last settled payment), or a value an earlier tool kept (`keeps`).
 */

/** One tool and the request its handler builds. */
export type Tool = {
  /** The tool's name, as the MCP server registers it. */
  name: string
  /** The file of plagtech/spraay-x402-mcp that defines it. */
  source: 'src/index.ts' | 'src/auto-tools.ts'
  /** HTTP method of the request. */
  method: 'GET' | 'POST' | 'PATCH'
  /** Path of the request, `{name}` filled in. */
  path: string
  /** Query parameters, as axios sends `params`. */
  query?: Record<string, string>
  /** JSON body. */
  body?: unknown
  /** Answer fields of the original gateway that must be present (dotted paths). */
  fields?: readonly string[]
  /** Values later tools use: name -> dotted path in the answer. */
  keeps?: Record<string, string>
  /** The variable whose vendor key this machine does not have: the call must be a 503 before payment. */
  needsKey?: string
  /**
   * A request the original gateway refuses too, as its handler reads the body (cited: file and line of
   * plagtech/spraay-x402-gateway at 376587a, its answer): here it must be a 400 before any payment naming `field`.
   */
  refused?: { field: string; original: string }
}

/** The tools, in the order they are replayed. */
export const tools: readonly Tool[] = [
  // Free tools (auto-tools.ts): no payment.
  {
    name: 'spraay_tokens',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/tokens',
    fields: ['popularTokens', 'chains', 'contract', 'fee'],
  },
  {
    name: 'spraay_free',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free',
    fields: ['name', 'description', 'endpoints', 'rateLimit'],
  },
  { name: 'spraay_free_gas', source: 'src/auto-tools.ts', method: 'GET', path: '/free/gas', fields: ['gas'] },
  { name: 'spraay_free_prices', source: 'src/auto-tools.ts', method: 'GET', path: '/free/prices', fields: ['prices'] },
  {
    name: 'spraay_free_chain_status',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/chain-status',
    fields: ['chains'],
  },
  {
    name: 'spraay_free_nonce',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/nonce',
    query: { address: '{payer}', chain: 'base' },
    fields: ['address', 'nonce', 'chain'],
  },
  {
    name: 'spraay_free_validate_address',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/validate-address',
    query: { address: '{other}', chain: 'evm' },
    fields: ['valid', 'chain', 'input'],
  },
  {
    name: 'spraay_free_validate_batch',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/free/validate-batch',
    body: {
      token: 'USDC',
      chain: 'base',
      sender: '{payer}',
      recipients: [
        { to: '{other}', amount: '1.5' },
        { to: '{third}', amount: '2' },
      ],
    },
    fields: ['valid', 'summary.token', 'summary.uniqueAddresses', 'summary.totalAmount', 'summary.bpaVersion'],
  },
  {
    name: 'spraay_free_estimate_batch',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/estimate-batch',
    query: { recipients: '10', chain: 'base' },
    fields: ['estimate'],
  },
  {
    name: 'spraay_free_resolve',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/resolve',
    query: { name: 'vitalik.eth' },
    fields: ['resolved'],
  },
  {
    name: 'spraay_free_agent_card',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/agent-card',
    fields: ['totalAgents', 'registry', 'chain'],
  },
  {
    name: 'spraay_free_x402_check',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/free/x402-check',
    body: { url: '{pages}/article' },
    fields: ['url', 'status', 'x402'],
  },
  {
    name: 'spraay_free_convert',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/convert',
    query: { amount: '1', from: 'ETH', to: 'USD' },
    fields: ['input', 'output'],
  },
  {
    name: 'spraay_free_timestamp',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/timestamp',
    fields: ['unix', 'unixMs', 'iso'],
  },
  {
    name: 'spraay_free_uuid',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/free/uuid',
    query: { count: '3' },
    fields: ['uuids'],
  },
  {
    name: 'spraay_bittensor_health',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/bittensor/v1/health',
    fields: ['status', 'providers', 'dropin'],
  },
  {
    name: 'spraay_gpu_models',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/gpu/models',
    fields: ['total', 'categories'],
  },
  {
    name: 'spraay_compute_models',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/compute/models',
    fields: ['categories', 'total_models'],
  },
  {
    name: 'spraay_compute_estimate',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/estimate',
    body: { jobs: [{ type: 'text-inference' }, { type: 'embeddings', model: 'auto' }] },
    fields: ['total_usdc'],
  },

  // AI (index.ts).
  {
    name: 'spraay_chat',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/chat/completions',
    body: {
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello.' },
      ],
      max_tokens: 1000,
    },
    fields: ['id', 'choices', 'usage'],
  },
  { name: 'spraay_models', source: 'src/index.ts', method: 'GET', path: '/api/v1/models', fields: ['models', 'total'] },

  // Payments.
  {
    name: 'spraay_batch_execute',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/batch/execute',
    body: { token: 'USDC', recipients: ['{other}', '{third}'], amounts: ['100', '250'], sender: '{payer}' },
    fields: [
      'success',
      'contract',
      'token.symbol',
      'batch.recipientCount',
      'batch.totalWithFee',
      'transaction.data',
      'approvalRequired.amount',
    ],
  },
  {
    name: 'spraay_batch_estimate',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/batch/estimate',
    body: { recipientCount: 5, token: 'USDC' },
    fields: ['success', 'token', 'recipientCount', 'feePercent', 'estimatedGas', 'note'],
  },

  // Swap.
  {
    name: 'spraay_swap_quote',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/swap/quote',
    query: { tokenIn: 'USDC', tokenOut: 'WETH', amountIn: '1000' },
    fields: ['tokenIn', 'tokenOut', 'route', 'dex', 'feeTier', 'priceImpact', 'executionPrice'],
  },
  {
    name: 'spraay_swap_tokens',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/swap/tokens',
    fields: ['tokens', 'total', 'network', 'router', 'supportedDexes'],
  },
  {
    name: 'spraay_swap_execute',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/swap/execute',
    body: { tokenIn: 'USDC', tokenOut: 'WETH', amountIn: '100', recipient: '{payer}', slippage: 0.5 },
    fields: ['status', 'quote', 'transactions', 'execution'],
  },

  // Oracle.
  {
    name: 'spraay_oracle_prices',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/oracle/prices',
    query: { tokens: 'ETH,cbBTC,USDT' },
    fields: ['prices.ETH.priceUSD', 'meta'],
  },
  {
    name: 'spraay_oracle_gas',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/oracle/gas',
    fields: ['gas', 'estimates', 'ethPriceUSD', 'block', 'chain', 'chainId'],
  },
  {
    name: 'spraay_oracle_fx',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/oracle/fx',
    query: { base: 'USDC' },
    fields: ['base', 'rates', 'meta'],
  },

  // Bridge.
  {
    name: 'spraay_bridge_quote',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/bridge/quote',
    query: { fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: '1000000', fromAddress: '{payer}' },
    fields: ['status', 'route', 'fees', 'timing', 'transaction'],
  },
  {
    name: 'spraay_bridge_chains',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/bridge/chains',
    fields: ['chains', 'chainCount'],
  },

  // Payroll.
  {
    name: 'spraay_payroll_execute',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/payroll/execute',
    body: {
      token: 'USDC',
      sender: '{payer}',
      employees: [
        { address: '{other}', amount: '2500', label: 'Alice' },
        { address: '{third}', amount: '1800.50', label: 'Bob' },
      ],
    },
    fields: ['status', 'payroll.totalAmount', 'payroll.totalWithFee', 'breakdown', 'transactions'],
  },
  {
    name: 'spraay_payroll_estimate',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/payroll/estimate',
    body: { employeeCount: 10, token: 'USDC' },
    fields: ['estimate', 'feeBreakdown', 'limits'],
  },
  {
    name: 'spraay_payroll_tokens',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/payroll/tokens',
    fields: ['tokens', 'tokenCount', 'recommended'],
  },

  // Invoice.
  {
    name: 'spraay_invoice_create',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/invoice/create',
    body: {
      creator: '{payer}',
      token: 'USDC',
      amount: '1500.00',
      recipient: '{other}',
      memo: 'Web development - March 2026',
      dueDate: '2027-04-15',
    },
    fields: ['status', 'invoice.id', 'invoice.amount', 'payment', 'lookup'],
    keeps: { invoiceId: 'invoice.id' },
  },
  {
    name: 'spraay_invoice_list',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/invoice/list',
    query: { address: '{payer}', status: 'pending' },
    fields: ['address', 'invoices', 'count', 'filters'],
  },
  {
    name: 'spraay_invoice_get',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/invoice/{invoiceId}',
    fields: ['invoice.id', 'invoice.status'],
  },

  // Analytics.
  {
    name: 'spraay_analytics_wallet',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/analytics/wallet',
    query: { address: '{payer}' },
    fields: ['address', 'classification', 'balances', 'activity', 'chain', 'chainId', 'currentBlock'],
  },
  {
    name: 'spraay_analytics_txhistory',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/analytics/txhistory',
    query: { address: '{payer}', limit: '10' },
    fields: ['address', 'transactions', 'count'],
  },

  // Escrow: one escrow funded and released, another funded and cancelled.
  {
    name: 'spraay_escrow_create',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/escrow/create',
    body: {
      depositor: '{payer}',
      beneficiary: '{other}',
      token: 'USDC',
      amount: '25.00',
      conditions: ['Design approved', 'Dev complete'],
      expiresIn: 168,
    },
    fields: ['status', 'escrow.id', 'escrow.amount', 'escrow.expiresAt', 'actions'],
    keeps: { escrowId: 'escrow.id' },
  },
  {
    name: 'spraay_escrow_list',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/escrow/list',
    query: { address: '{payer}', status: 'created' },
    fields: ['address', 'escrows', 'count', 'filters'],
  },
  {
    name: 'spraay_escrow_get',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/escrow/{escrowId}',
    fields: ['escrow.id', 'escrow.status'],
  },
  {
    name: 'spraay_escrow_fund',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/escrow/fund',
    body: { escrowId: '{escrowId}' },
    fields: ['status', 'escrow'],
  },
  {
    name: 'spraay_escrow_release',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/escrow/release',
    body: { escrowId: '{escrowId}', caller: '{payer}' },
    fields: ['status', 'escrow.releasedBy', 'transaction.signer'],
  },
  {
    name: 'spraay_escrow_cancel',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/escrow/cancel',
    body: { escrowId: '{cancelledEscrowId}', caller: '{payer}' },
    fields: ['status', 'escrow.cancelledBy'],
  },

  // Inference.
  {
    name: 'spraay_classify_address',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/inference/classify-address',
    body: { address: '{payer}' },
    fields: ['address', 'onChainProfile', 'classification'],
  },
  {
    name: 'spraay_classify_tx',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/inference/classify-tx',
    body: { hash: '{settlement}' },
    fields: ['hash', 'transaction', 'classification'],
  },
  {
    name: 'spraay_explain_contract',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/inference/explain-contract',
    body: { address: '{usdc}' },
    fields: ['address', 'contractInfo', 'analysis', 'basescanUrl'],
  },
  {
    name: 'spraay_summarize',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/inference/summarize',
    body: { target: '{payer}', context: 'defi' },
    fields: ['target', 'targetType', 'context', 'briefing'],
  },

  // Communication: email, SMS and their status.
  {
    name: 'spraay_notify_email',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/notify/email',
    body: {
      to: 'user@example.com',
      body: 'Your payment of 25 USDC was received.',
      subject: 'Payment received',
      cc: 'accounts@example.com',
      replyTo: 'support@example.com',
    },
    fields: ['id', 'type', 'to', 'subject', 'status'],
    keeps: { notificationId: 'id' },
  },
  {
    name: 'spraay_notify_sms',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/notify/sms',
    body: { to: '+14155551234', body: 'Payment received: 25 USDC.' },
    needsKey: 'NOTIFY_TWILIO_ACCOUNT_SID',
  },
  {
    name: 'spraay_notify_status',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/notify/status',
    query: { id: '{notificationId}' },
    fields: ['id', 'type', 'to', 'subject', 'status', 'createdAt', 'deliveredAt'],
  },

  // Communication: webhooks.
  {
    name: 'spraay_webhook_register',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/webhook/register',
    body: { url: '{pages}/webhook', events: ['payment.sent', 'escrow.funded', 'swap.completed'] },
    fields: ['id', 'url', 'events', 'secret', 'status'],
    keeps: { webhookId: 'id' },
  },
  {
    name: 'spraay_webhook_test',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/webhook/test',
    body: { webhookId: '{webhookId}' },
    fields: ['webhookId', 'url', 'testPayload', 'delivered'],
  },
  {
    name: 'spraay_webhook_list',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/webhook/list',
    query: { status: 'active' },
    fields: ['webhooks', 'total'],
  },
  {
    name: 'spraay_webhook_delete',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/webhook/delete',
    body: { webhookId: '{webhookId}' },
    fields: ['deleted', 'webhookId'],
  },

  // Communication: XMTP (the encrypted messaging family here).
  {
    name: 'spraay_xmtp_send',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/xmtp/send',
    body: { to: '{payer}', content: 'gm from the replay', contentType: 'text/plain' },
    fields: ['id', 'status'],
  },
  {
    name: 'spraay_xmtp_inbox',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/xmtp/inbox',
    query: { address: '{payer}', limit: '20' },
    fields: ['address', 'messages', 'total'],
  },

  // Infrastructure: RPC.
  {
    name: 'spraay_rpc_call',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/rpc/call',
    body: { chain: 'base', method: 'eth_getBalance', params: ['{payer}', 'latest'] },
    fields: ['chain', 'chainId', 'method', 'result'],
  },
  {
    name: 'spraay_rpc_chains',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/rpc/chains',
    fields: ['chains', 'allowedMethods'],
  },

  // Infrastructure: storage.
  {
    name: 'spraay_storage_pin',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/storage/pin',
    body: { data: '{"invoice":"INV-1","total":"25.00"}', contentType: 'application/json', provider: 'ipfs' },
    fields: ['id', 'cid', 'provider', 'size', 'status', 'gateway', 'ipfsUri'],
    keeps: { pinId: 'id', cid: 'cid' },
  },
  {
    name: 'spraay_storage_get',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/storage/get',
    query: { cid: '{cid}' },
    fields: ['cid', 'provider', 'size', 'contentType', 'status', 'pinnedAt'],
  },
  {
    name: 'spraay_storage_status',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/storage/status',
    query: { id: '{pinId}' },
    fields: ['id', 'cid', 'status', 'createdAt', 'pinnedAt'],
  },

  // Infrastructure: cron.
  {
    name: 'spraay_cron_create',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/cron/create',
    body: {
      action: 'batch.execute',
      schedule: '0 9 * * 1',
      payload: { token: 'USDC', recipients: [{ address: '{other}', amount: '1000000' }] },
      maxRuns: 12,
    },
    fields: ['id', 'action', 'schedule', 'status', 'nextRun', 'maxRuns'],
    keeps: { jobId: 'id' },
  },
  {
    name: 'spraay_cron_list',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/cron/list',
    query: { status: 'active', action: 'batch.execute' },
    fields: ['jobs', 'total'],
  },
  {
    name: 'spraay_cron_cancel',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/cron/cancel',
    body: { jobId: '{jobId}' },
    fields: ['jobId', 'status', 'runCount'],
  },

  // Infrastructure: logs.
  {
    name: 'spraay_logs_ingest',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/logs/ingest',
    body: {
      entries: [
        { level: 'info', service: 'batch-agent', message: 'Batch sent', data: { recipients: 2 } },
        { level: 'error', service: 'swap-bot', message: 'Quote expired' },
      ],
    },
    fields: ['ingested', 'skipped', 'ids'],
  },
  {
    name: 'spraay_logs_query',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/logs/query',
    query: { service: 'batch-agent', level: 'info', since: '2026-03-01T00:00:00Z', limit: '50' },
    fields: ['logs', 'total'],
  },

  // Identity: KYC and sessions.
  {
    name: 'spraay_kyc_verify',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/kyc/verify',
    body: { address: '{payer}', type: 'individual', level: 'basic' },
    fields: ['id', 'type', 'address', 'status', 'level', 'checks', 'createdAt'],
    keeps: { kycId: 'id' },
  },
  {
    name: 'spraay_kyc_status',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/kyc/status',
    query: { id: '{kycId}', address: '{payer}' },
    fields: ['id', 'type', 'address', 'level', 'status', 'checks', 'createdAt', 'expiresAt'],
  },
  {
    name: 'spraay_auth_session',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/auth/session',
    body: { address: '{payer}', permissions: ['batch:execute', 'swap:execute'], ttlSeconds: 3600 },
    fields: ['sessionId', 'token', 'address', 'permissions', 'expiresAt', 'ttlSeconds'],
    keeps: { sessionToken: 'token' },
  },
  {
    name: 'spraay_auth_verify',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/auth/verify',
    query: { token: '{sessionToken}' },
    fields: ['valid', 'sessionId', 'address', 'permissions', 'expiresAt'],
  },

  // Compliance: audit and tax.
  {
    name: 'spraay_audit_log',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/audit/log',
    body: {
      action: 'payment.sent',
      actor: '{payer}',
      resource: 'batch_123',
      details: { amount: '25.00', token: 'USDC' },
      txHash: '{settlement}',
    },
    fields: ['id', 'action', 'actor', 'resource', 'recorded'],
  },
  {
    name: 'spraay_audit_query',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/audit/query',
    query: { actor: '{payer}', action: 'payment.sent', since: '2026-03-01T00:00:00Z', limit: '50' },
    fields: ['entries', 'total'],
  },
  {
    name: 'spraay_tax_calculate',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/tax/calculate',
    body: {
      transactions: [
        { type: 'swap', asset: 'ETH', amount: 1.5, costBasisUsd: 3000, proceedsUsd: 4200, holdingDays: 400 },
        { type: 'send', asset: 'USDC', amount: 500, costBasisUsd: 500, proceedsUsd: 499.5, holdingDays: 30 },
      ],
    },
    fields: ['reportId', 'summary', 'events', 'method', 'priceSource'],
    keeps: { reportId: 'reportId' },
  },
  {
    name: 'spraay_tax_report',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/tax/report',
    query: { reportId: '{reportId}' },
    fields: ['reportId', 'summary', 'events', 'totalEvents', 'createdAt'],
  },

  // GPU.
  {
    name: 'spraay_gpu_run',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/gpu/run',
    body: { model: 'flux-pro', input: { prompt: 'a lighthouse at dusk' } },
    fields: ['id', 'status', 'model', 'created_at', 'poll_url'],
    keeps: { predictionId: 'id' },
  },
  {
    name: 'spraay_gpu_status',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/gpu/status/{predictionId}',
    fields: ['id', 'status', 'model', 'created_at'],
  },

  // Search.
  {
    name: 'spraay_search_web',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/search/web',
    body: { query: 'x402 protocol explained', search_depth: 'basic', max_results: 5, topic: 'general' },
    needsKey: 'TAVILY_API_KEY',
  },
  {
    name: 'spraay_search_extract',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/search/extract',
    body: { urls: ['{pages}/article'] },
    fields: ['results', 'failed'],
  },
  {
    name: 'spraay_search_qna',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/search/qna',
    body: { query: 'What is the x402 protocol?', topic: 'general' },
    needsKey: 'TAVILY_API_KEY',
  },

  // Data.
  {
    name: 'spraay_prices',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/prices',
    query: { token: 'WETH' },
    fields: ['prices.WETH.priceUSD', 'network', 'chainId', 'source', 'tokenCount'],
  },
  {
    name: 'spraay_balances',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/balances',
    query: { address: '{payer}', showAll: 'true' },
    fields: ['address', 'network', 'chainId', 'balances', 'tokenCount'],
  },
  {
    name: 'spraay_resolve',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/resolve',
    query: { name: '{payer}' },
    fields: ['address', 'name', 'source'],
  },

  // Compute.
  {
    name: 'spraay_compute_text_inference',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/text-inference',
    body: { messages: [{ role: 'user', content: 'Name three L2s.' }], model: 'auto', max_tokens: 1000 },
    fields: ['provider', 'model', 'choices', 'usage', 'price_usdc'],
  },
  {
    name: 'spraay_compute_image_generation',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/image-generation',
    body: { prompt: 'a lighthouse at dusk', model: 'auto', width: 1024, height: 1024, num_outputs: 1 },
    fields: ['provider', 'model', 'model_label', 'status', 'images', 'prediction_id', 'poll_url', 'price_usdc'],
    keeps: { computeJobId: 'id' },
  },
  {
    name: 'spraay_compute_video_generation',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/video-generation',
    body: { prompt: 'waves on a beach', model: 'auto', duration_seconds: 4 },
    fields: ['provider', 'model', 'model_label', 'status', 'video_url', 'prediction_id', 'poll_url', 'price_usdc'],
  },
  {
    name: 'spraay_compute_tts',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/text-to-speech',
    body: { text: 'Payment received.', model: 'auto', language: 'en' },
    fields: ['provider', 'model', 'status', 'audio_url', 'price_usdc'],
  },
  {
    name: 'spraay_compute_stt',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/speech-to-text',
    body: { audio_url: '{pages}/audio.wav', model: 'auto', language: 'en' },
    fields: ['provider', 'model', 'status', 'transcription', 'price_usdc'],
  },
  {
    name: 'spraay_compute_embeddings',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/embeddings',
    body: { input: 'pay per call', model: 'auto' },
    fields: ['provider', 'model', 'data', 'usage', 'price_usdc'],
  },
  {
    name: 'spraay_compute_batch',
    source: 'src/index.ts',
    method: 'POST',
    path: '/api/v1/compute/batch',
    body: {
      jobs: [
        { type: 'text-inference', messages: [{ role: 'user', content: 'Hi' }] },
        { type: 'embeddings', input: 'pay per call' },
      ],
    },
    fields: ['batch_id', 'jobs_submitted', 'total_cost_usdc', 'results'],
  },
  {
    name: 'spraay_compute_status',
    source: 'src/index.ts',
    method: 'GET',
    path: '/api/v1/compute/status/{computeJobId}',
    fields: ['prediction_id', 'status', 'output', 'error', 'created_at', 'completed_at'],
  },

  // Robots (auto-tools.ts): an operator registers a robot, an agent hires it, the operator completes the task.
  {
    name: 'spraay_robots_register',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/robots/register',
    body: {
      name: 'Courier One',
      description: 'Delivers parcels across the campus',
      capabilities: ['delivery'],
      price_per_task: '0.05',
      currency: 'USDC',
      chain: 'base',
      payment_address: '{other}',
      connection: { type: 'webhook', webhookUrl: '{pages}/robot' },
    },
    fields: ['status', 'robot_id'],
    keeps: { robotId: 'robot_id' },
  },
  {
    name: 'spraay_robots_list',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/robots/list',
    query: { capability: 'delivery', max_price: '1' },
    fields: ['robots', 'total', 'filters'],
  },
  {
    name: 'spraay_robots_profile',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/robots/profile',
    query: { robot_id: '{robotId}' },
    fields: ['robot_id', 'name', 'capabilities', 'price_per_task'],
  },
  {
    name: 'spraay_robots_task',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/robots/task',
    body: { robot_id: '{robotId}', task: 'delivery', parameters: { to: 'Building 4' } },
    fields: ['status', 'task_id', 'robot_id', 'poll_url'],
    keeps: { taskId: 'task_id' },
  },
  {
    name: 'spraay_robots_status',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/robots/status',
    query: { task_id: '{taskId}' },
    fields: ['task_id', 'robot_id', 'status', 'is_terminal'],
  },
  {
    name: 'spraay_robots_complete',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/robots/complete',
    body: { task_id: '{taskId}', status: 'COMPLETED', result: { delivered: true } },
    fields: ['task_id', 'status'],
  },
  {
    name: 'spraay_robots_update',
    source: 'src/auto-tools.ts',
    method: 'PATCH',
    path: '/api/v1/robots/update',
    body: { robot_id: '{robotId}', price_per_task: '0.08' },
    fields: ['status', 'robot_id'],
  },
  {
    name: 'spraay_robots_deregister',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/robots/deregister',
    body: { robot_id: '{robotId}' },
    fields: ['status', 'robot_id'],
  },

  // Agent wallets.
  {
    name: 'spraay_agent_wallet_predict',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/agent-wallet/predict',
    query: { ownerAddress: '{payer}', agentId: 'replay-agent-1' },
    fields: ['status', 'predictedAddress'],
  },
  {
    name: 'spraay_agent_wallet_provision',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/agent-wallet/provision',
    body: { agentId: 'replay-agent-1', agentType: 'trading', mode: 'self-custody' },
    fields: ['status', 'wallet.walletAddress', 'wallet.ownerAddress'],
    keeps: { agentWallet: 'wallet.walletAddress' },
  },
  {
    name: 'spraay_agent_wallet_info',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/agent-wallet/info',
    query: { address: '{agentWallet}' },
    fields: ['status', 'wallet'],
  },
  {
    name: 'spraay_agent_wallet_session_key',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/agent-wallet/session-key',
    body: { walletAddress: '{agentWallet}', sessionKeyAddress: '{third}', spendLimitEth: '0.5', durationHours: 24 },
    fields: ['status', 'session'],
  },
  {
    name: 'spraay_agent_wallet_revoke_key',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/agent-wallet/revoke-key',
    body: { walletAddress: '{agentWallet}', sessionKeyAddress: '{third}' },
    fields: ['status', 'txHash'],
  },

  // Supply chain (SCTP).
  {
    name: 'spraay_sctp_supplier',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/sctp/supplier',
    body: { name: 'Acme Parts', wallet: '{other}', paymentPrefs: { token: 'USDC', chain: 'base' } },
    fields: ['supplierId', 'name', 'wallet', 'chain', 'preferredToken', 'paymentPrefs'],
    keeps: { supplierId: 'supplierId' },
  },
  {
    name: 'spraay_sctp_supplier_by_id',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/sctp/supplier/{supplierId}',
    fields: ['supplierId', 'name', 'wallet'],
  },
  {
    name: 'spraay_sctp_po',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/sctp/po',
    body: {
      supplierId: '{supplierId}',
      lineItems: [{ description: 'Bearings', quantity: 10, unitPrice: '2.50' }],
      currency: 'USDC',
    },
    refused: {
      field: 'lineItems',
      original:
        'src/routes/sctp.ts:189 (sctpPoCreateHandler reads supplierId, items, total): 400 "supplierId, items, and total are required"',
    },
  },
  {
    name: 'spraay_sctp_po_by_id',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/sctp/po/{poId}',
    fields: ['poId', 'supplierId', 'total', 'status'],
  },
  {
    name: 'spraay_sctp_invoice',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/sctp/invoice',
    body: { poId: '{poId}', supplierId: '{supplierId}', amount: '25', currency: 'USDC' },
    refused: {
      field: 'total',
      original:
        'src/routes/sctp.ts:275 (sctpInvoiceSubmitHandler reads poId, supplierId, items, total, currency): 400 "supplierId, items, and total are required"',
    },
  },
  {
    name: 'spraay_sctp_invoice_by_id',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/sctp/invoice/{sctpInvoiceId}',
    fields: ['invoiceId', 'poId', 'total', 'status'],
  },
  {
    name: 'spraay_sctp_invoice_verify',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/sctp/invoice/verify',
    body: { invoiceId: '{sctpInvoiceId}' },
    fields: ['invoiceId', 'poId', 'recommendation'],
  },
  {
    name: 'spraay_sctp_pay',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/sctp/pay',
    body: { invoiceId: '{sctpInvoiceId}', batch: false },
    refused: {
      field: 'batch',
      original:
        'src/routes/sctp.ts:619 (sctpPayExecuteHandler reads supplierId and amount, or payments[]): 400 "supplierId and amount are required (or provide payments[] for batch)"',
    },
  },

  // The decentralized network (its Bittensor drop-in paths).
  {
    name: 'spraay_bittensor_models',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/bittensor/v1/models',
    fields: ['object', 'data'],
  },
  {
    name: 'spraay_bittensor_chat_completions',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/bittensor/v1/chat/completions',
    body: { model: 'small-model', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64, temperature: 0.2 },
    fields: ['id', 'choices', 'usage'],
  },
  {
    name: 'spraay_bittensor_images_generations',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/bittensor/v1/images/generations',
    body: { prompt: 'a lighthouse at dusk', n: 1, size: '1024x1024' },
    fields: ['created', 'data'],
  },
  {
    name: 'spraay_bittensor_embeddings',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/bittensor/v1/embeddings',
    body: { model: 'small-model', input: 'pay per call' },
    fields: ['data', 'model'],
  },

  // Solana.
  {
    name: 'spraay_solana_jupiter_quote',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/solana/jupiter/quote',
    query: {
      inputMint: 'So11111111111111111111111111111111111111112',
      outputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      amount: '1000000',
      slippageBps: '50',
    },
    fields: ['inputMint', 'outputMint', 'inAmount', 'outAmount', 'priceImpactPct', 'slippageBps', 'routeHops', 'raw'],
    keeps: { jupiterQuote: 'raw' },
  },
  {
    name: 'spraay_solana_jupiter_swap_tx',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/solana/jupiter/swap-tx',
    body: { quoteResponse: '{jupiterQuote}', userPublicKey: '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY' },
    fields: ['swapTransaction', 'lastValidBlockHeight'],
  },
  {
    name: 'spraay_solana_helius_assets_by_owner',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/solana/helius/assets-by-owner',
    query: { owner: '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY', page: '1', limit: '10' },
    fields: ['owner', 'total', 'page', 'limit', 'itemCount', 'items'],
    keeps: { assetId: 'items.0.id' },
  },
  {
    name: 'spraay_solana_helius_asset',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/solana/helius/asset',
    query: { id: '{assetId}' },
    fields: ['id', 'asset'],
  },
  {
    name: 'spraay_solana_pyth_price',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/solana/pyth/price',
    query: { feedId: 'SOL' },
    fields: ['symbol', 'price', 'confidence', 'publishTime'],
  },
  {
    name: 'spraay_solana_pyth_prices',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/solana/pyth/prices',
    query: { feedIds: 'SOL,BTC' },
    fields: ['count', 'prices'],
  },

  // Later routes of the original (issue 36); the portfolio's base-mainnet is the devnet here, read from its own node.
  {
    name: 'spraay_portfolio_tokens',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/portfolio/tokens',
    query: { address: '{payer}', networks: 'base-mainnet' },
    fields: ['address', 'networks', 'token_count', 'total_usd_value', 'tokens'],
  },
  {
    name: 'spraay_portfolio_nfts',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/portfolio/nfts',
    query: { address: '{payer}', networks: 'base-mainnet' },
    fields: ['address', 'networks', 'total_count', 'returned_count', 'page_key', 'nfts'],
  },
  {
    name: 'spraay_contract_read',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/contract/read',
    body: { chain: 'base', address: '{usdc}', method: 'totalSupply', args: [] },
    fields: ['chain', 'address', 'method', 'args', 'result', 'raw_result'],
  },
  {
    name: 'spraay_contract_write',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/contract/write',
    body: { chain: 'base', address: '{usdc}', method: 'approve', args: ['{other}', '1'], walletId: 'wallet-1' },
    needsKey: 'PHANTOM_PRIVATE_KEY',
  },

  // DeFi positions.
  {
    name: 'spraay_defi_positions',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/defi/positions',
    query: { address: '{payer}', chain: 'base-mainnet' },
    fields: ['address', 'chain', 'total_positions', 'protocols_with_exposure', 'positions', 'by_protocol'],
  },

  // XRP Ledger and Stellar.
  {
    name: 'spraay_xrp_info',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/xrp/info',
    fields: ['chain', 'network', 'decimals', 'explorer', 'features'],
  },
  {
    name: 'spraay_xrp_estimate',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/xrp/estimate',
    body: { recipientCount: 3 },
    fields: ['estimatedFee', 'chain', 'estimate'],
  },
  {
    name: 'spraay_xrp_batch',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/xrp/batch',
    body: { senderSecret: '{xrpSecret}', recipients: '{xrpRecipients}', amounts: ['1.5', '2'] },
    fields: ['hash', 'status'],
  },
  {
    name: 'spraay_stellar_estimate',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/stellar/estimate',
    body: { recipientCount: 3 },
    fields: ['estimatedFee', 'chain', 'recipientCount', 'networkFee'],
  },
  {
    name: 'spraay_stellar_batch',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/stellar/batch',
    body: { sourceSecret: '{stellarSecret}', recipients: '{stellarRecipients}', amounts: ['1.5', '2'] },
    fields: ['hash', 'status'],
  },

  // Compute futures.
  {
    name: 'spraay_compute_futures_pricing',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/compute-futures/pricing',
    fields: ['tiers', 'pricing', 'batchDiscount'],
  },
  {
    name: 'spraay_compute_futures_deposit',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/compute-futures/deposit',
    body: { depositor: '{payer}', amount: '25', expiresInDays: 30 },
    fields: ['status', 'transactions', 'creditExpiry'],
  },
  {
    name: 'spraay_compute_futures_balance',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/compute-futures/balance',
    query: { id: '{payer}' },
    fields: ['address', 'balance', 'deposited', 'tier', 'discount'],
  },
  {
    name: 'spraay_compute_futures_execute',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/compute-futures/execute',
    body: { futuresId: '{payer}', type: 'text-inference', model: 'auto', messages: [{ role: 'user', content: 'Hi' }] },
    refused: {
      field: 'job',
      original:
        'src/routes/compute-futures.ts:234 (computeFuturesExecuteHandler reads depositor and type): 400 "depositor (address) and type are required"',
    },
  },
  {
    name: 'spraay_compute_futures_history',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/compute-futures/history',
    query: { id: '{payer}', limit: '10' },
    fields: ['address', 'usage'],
  },
  {
    name: 'spraay_compute_futures_refund',
    source: 'src/auto-tools.ts',
    method: 'POST',
    path: '/api/v1/compute-futures/refund',
    body: { futuresId: '{payer}', caller: '{payer}' },
    refused: {
      field: 'futuresId',
      original:
        'src/routes/compute-futures.ts:424 (computeFuturesRefundHandler reads depositor): 400 "depositor address required"',
    },
  },

  // Research (auto-tools.ts), on the vendors' local stand-ins.
  {
    name: 'spraay_research_dictionary_define',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/dictionary/define',
    query: { word: 'hello', lang: 'en' },
    fields: ['category', 'endpoint', 'source', 'results', 'attribution'],
  },
  {
    name: 'spraay_research_dictionary_synonyms',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/dictionary/synonyms',
    query: { word: 'hello' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_dictionary_phonetics',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/dictionary/phonetics',
    query: { word: 'hello' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_papers_search',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/papers/search',
    query: { q: 'open access', filter: 'publication_year:2018', page: '1', per_page: '5' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_papers_by_doi',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/papers/by-doi',
    query: { doi: '10.7717/peerj.4375' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_papers_by_author',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/papers/by-author',
    query: { author: 'Josiah Carberry', page: '1' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_papers_citations',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/papers/citations',
    query: { doi: '10.7717/peerj.4375' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_papers_trending',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/papers/trending',
    query: { topic: 'climate', days: '7', per_page: '5' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_preprints_search',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/preprints/search',
    query: { q: 'attention transformers', category: 'cs.CL', max_results: '3' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_preprints_by_id',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/preprints/by-id',
    query: { id: '1706.03762' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_preprints_recent',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/preprints/recent',
    query: { category: 'cs.AI', max_results: '2' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_scholarly_by_doi',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/scholarly/by-doi',
    query: { doi: '10.5555/12345678' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_scholarly_search',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/scholarly/search',
    query: { q: 'metaphysics', rows: '4', offset: '0' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_scholarly_citations_count',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/scholarly/citations-count',
    query: { doi: '10.5555/12345678' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_scholarly_journal_info',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/scholarly/journal-info',
    query: { issn: '0028-0836' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_chemistry_compound',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/chemistry/compound',
    query: { name: 'aspirin' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_chemistry_similarity',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/chemistry/similarity',
    query: { cid: '2244', threshold: '95', max_records: '3' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_chemistry_bioactivity',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/chemistry/bioactivity',
    query: { cid: '2244' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_biomedical_search',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/biomedical/search',
    query: { q: 'things', max_results: '3' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_biomedical_by_pmid',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/biomedical/by-pmid',
    query: { pmid: '31452104' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_biomedical_related',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/biomedical/related',
    query: { pmid: '31452104', max_results: '3' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_demographics_census',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/demographics/census',
    query: { dataset: 'acs/acs5', year: '2021', variables: 'NAME,B01003_001E', geo: 'state:06' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
  {
    name: 'spraay_research_demographics_datasets',
    source: 'src/auto-tools.ts',
    method: 'GET',
    path: '/api/v1/research/demographics/datasets',
    query: { q: 'climate', rows: '1' },
    fields: ['category', 'endpoint', 'source', 'results'],
  },
]
