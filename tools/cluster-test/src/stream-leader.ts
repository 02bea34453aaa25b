// Which NATS node leads a stream, asked as the operators' CLI would (its user may read stream
// state): the fault that matters most on a JetStream cluster is the loss of that node.
import { jetstreamManager } from '@nats-io/jetstream';
import { nkeyAuthenticator } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { inboxPrefixOf } from '@wap/contracts';
import type { BusCredentials } from '@wap/service-runtime';

export async function streamLeader(
  natsUrl: string,
  credentials: BusCredentials,
  stream: string,
): Promise<string> {
  const nc = await connect({
    servers: natsUrl.split(','),
    authenticator: nkeyAuthenticator(
      new TextEncoder().encode(credentials.environmentOf('operator').NATS_NKEY_SEED),
    ),
    inboxPrefix: inboxPrefixOf('operator'),
  });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    const leader = info.cluster?.leader;
    if (!leader) throw new Error(`stream ${stream} has no leader`);
    return leader;
  } finally {
    await nc.close();
  }
}
