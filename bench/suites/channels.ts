import { randomBytes } from 'node:crypto';
import { type BenchSuite, measure, printTable, ratio, startParley, startScript } from '../lib.js';

/**
 * Channel create and channel query at 50 connections, next to a node:http hello world: the ratio is
 * what routing, validation, auth and storage cost over a server that does nothing.
 */
export const channelsSuite: BenchSuite = {
  name: 'channels',
  async run() {
    const hello = await startScript('bench/baselines/hello-world.ts');
    const baseline = await measure('node:http hello world (baseline)', { url: `${hello.url}/` });
    await hello.stop();

    const parley = await startParley();
    const headers = { authorization: `Bearer ${parley.adminToken}`, 'content-type': 'application/json' };
    const run = randomBytes(3).toString('hex');
    let counter = 0;
    const create = await measure('POST /api/v2/channel (create)', {
      url: `${parley.url}/api/v2/channel`,
      method: 'POST',
      headers,
      body: () => JSON.stringify({ channelId: `b-${run}-${++counter}`, type: 'standard', tags: ['bench'] }),
    });
    create.note = `ratio to baseline ${ratio(create, baseline)}; ${counter} channels made`;
    const query = await measure('POST /api/v2/channels (query, 10 per page)', {
      url: `${parley.url}/api/v2/channels`,
      method: 'POST',
      headers,
      body: JSON.stringify({ filter: 'member', tags: ['bench'], options: { limit: 10 } }),
    });
    query.note = `ratio to baseline ${ratio(query, baseline)}`;
    await parley.stop();
    printTable('Channels (SQLite, 50 connections)', [baseline, create, query]);
  },
};
