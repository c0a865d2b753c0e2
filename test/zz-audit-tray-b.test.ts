import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialStore } from '../src/modules/social/social.store.js';
import { createTrayService } from '../src/modules/tray/tray.service.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';
import { DAY_MS, type EndUser, type TrayKit, type TrayRecordJson, trayKit } from './helpers/tray.js';

const SEED = Number(process.env.AUDIT_SEED ?? 1);
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('audit tray b: differential', () => {
  let t: TestApp;
  let kit: TrayKit;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TRAY_ENABLED: '1' });
    kit = trayKit(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('history equals a brute-force model', async () => {
    const rand = rng(SEED);
    const pick = <T,>(xs: T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const users: EndUser[] = [];
    for (let i = 0; i < 6; i += 1) users.push(await kit.user(`u${i}`, `U${i}`));
    const communities: string[] = [];
    for (let i = 0; i < 5; i += 1) communities.push(await kit.community(users[i % users.length] as EndUser, `C${i}`, []));
    let offset = 0;
    const posts: string[] = [];
    const comments: Array<{ id: string; author: EndUser }> = [];
    const steps = Number(process.env.AUDIT_STEPS ?? 400);
    for (let step = 0; step < steps; step += 1) {
      const r = rand();
      const u = pick(users);
      if (r < 0.06) {
        const adv = rand() < 0.1 ? Math.floor(rand() * 12 * DAY_MS) : Math.floor(rand() * Number(process.env.AUDIT_ADV ?? 3) * DAY_MS);
        offset += adv;
        t.clock.setOffset(offset);
      } else if (r < 0.2) {
        await u.call('POST', `/client/v1/communities/${pick(communities)}/${rand() < 0.6 ? 'join' : 'leave'}`);
      } else if (r < 0.45) {
        const res = await u.call('POST', '/client/v1/posts', rand() < 0.8 ? { communityId: pick(communities), text: 'p' } : { text: 'p' });
        if (res.statusCode === 200) posts.push(res.json().postId);
      } else if (r < 0.65 && posts.length) {
        const res = await u.call('POST', `/client/v1/posts/${pick(posts)}/comments`, { text: 'c' });
        if (res.statusCode === 200) comments.push({ id: res.json().commentId, author: u });
      } else if (r < 0.8 && posts.length) {
        await u.call('POST', `/client/v1/posts/${pick(posts)}/reactions`, { reactionName: 'like' });
      } else if (r < 0.88 && posts.length) {
        await u.call('DELETE', `/client/v1/posts/${pick(posts)}/reactions/like`);
      } else if (r < 0.94 && comments.length) {
        const c = pick(comments);
        await c.author.call('DELETE', `/client/v1/comments/${c.id}`);
      } else if (r < 0.97 && posts.length) {
        await u.call('DELETE', `/client/v1/posts/${pick(posts)}`);
      } else {
        await kit.settle();
        const res = await u.call('GET', '/notifications/history');
        if (res.statusCode === 200) {
          const data = res.json().data as TrayRecordJson[];
          if (data.length) {
            const rec = pick(data);
            const m = await u.call('POST', '/notifications/read', { verb: rec.verb, targetId: rec.targetId, targetGroup: rec.targetGroup });
            if (m.statusCode !== 200) console.log('markRead failed', m.statusCode, m.body);
          }
        }
      }
    }
    await kit.settle();
    const db = t.storage.db;
    const now = t.clock.now();
    const notBefore = now - 90 * DAY_MS;
    const records = await db.selectFrom('tray_records').selectAll().execute();
    const contributions = await db.selectFrom('tray_contributions').selectAll().execute();
    const stints = await db.selectFrom('community_members').selectAll().execute();
    const reads = await db.selectFrom('tray_reads').selectAll().execute();
    const kysely = createTrayService({ db, clock: t.clock, intervalsOf: (userId, since) => createSocialStore(db, 'sqlite').intervalsOf(userId, since), sqlite: null });

    const expectedOf = (reader: EndUser) => {
      const out: Array<{ key: string; lastUpdate: number; actors: string[]; actorsCount: number; hasRead: boolean }> = [];
      for (const rec of records) {
        const mine = rec.owner_key === `u:${reader.userId}`;
        let cs = contributions.filter((c) => Number(c.record_id) === Number(rec.id));
        if (!mine) {
          if (!rec.owner_key.startsWith('c:')) continue;
          const cid = rec.owner_key.slice(2);
          const my = stints.filter((s) => s.community_id === cid && s.user_id === reader.userId);
          cs = cs.filter((c) => c.actor_id !== reader.userId && my.some((s) => Number(s.joined_at) < Number(c.at) && (s.left_at === null || Number(c.at) < Number(s.left_at))));
        } else if (Number(rec.last_update) < notBefore) continue;
        if (cs.length === 0) continue;
        const latest = new Map<string, number>();
        for (const c of cs) latest.set(c.actor_id, Math.max(latest.get(c.actor_id) ?? 0, Number(c.at)));
        const sorted = [...latest.entries()].sort((a, b) => b[1] - a[1]);
        const lastUpdate = sorted[0]?.[1] as number;
        if (lastUpdate < notBefore) continue;
        const read = reads.find((x) => x.user_id === reader.userId && Number(x.record_id) === Number(rec.id));
        out.push({
          key: `${rec.verb}/${rec.target_id}/${rec.window_start}`,
          lastUpdate,
          actors: sorted.slice(0, 3).map((x) => x[0]),
          actorsCount: sorted.length,
          hasRead: read !== undefined && Number(read.read_upto) >= lastUpdate,
        });
      }
      return out.sort((a, b) => b.lastUpdate - a.lastUpdate);
    };
    const shape = (r: TrayRecordJson) => ({ key: `${r.verb}/${r.targetId}/${r.targetGroup}`, lastUpdate: r.lastUpdate, actors: r.actors.map((a) => a.id), actorsCount: r.actorsCount, hasRead: r.hasRead });
    let mismatches = 0;
    // aggregator invariants
    const actorsRows = await db.selectFrom('tray_actors').selectAll().execute();
    for (const rec of records) {
      const cs = contributions.filter((c) => Number(c.record_id) === Number(rec.id));
      const latest = new Map<string, number>();
      for (const c of cs) latest.set(c.actor_id, Math.max(latest.get(c.actor_id) ?? 0, Number(c.at)));
      const sorted = [...latest.entries()].sort((a, b) => b[1] - a[1]);
      const ar = actorsRows.filter((a) => Number(a.record_id) === Number(rec.id)).map((a) => [a.actor_id, Number(a.last_at)]).sort((a, b) => (b[1] as number) - (a[1] as number));
      const problems: string[] = [];
      if (cs.length === 0) problems.push('empty');
      if (rec.actors_count !== sorted.length) problems.push(`actors_count ${rec.actors_count} vs ${sorted.length}`);
      if (JSON.stringify(ar) !== JSON.stringify(sorted)) problems.push(`tray_actors ${JSON.stringify(ar)} vs ${JSON.stringify(sorted)}`);
      if (Number(rec.last_update) !== sorted[0]?.[1]) problems.push('last_update');
      if ((rec.prev_update === null ? null : Number(rec.prev_update)) !== (sorted[1]?.[1] ?? null)) problems.push('prev_update');
      if (rec.top_actor_id !== sorted[0]?.[0]) problems.push('top');
      if (JSON.stringify(JSON.parse(rec.actors).map((a: { id: string }) => a.id)) !== JSON.stringify(sorted.slice(0, 3).map((x) => x[0]))) problems.push('actors json');
      for (const c of cs) if (Number(c.at) - Number(rec.window_start) > 10 * DAY_MS || Number(c.at) < Number(rec.window_start)) problems.push('outside window');
      if (problems.length) console.log('RECORD PROBLEM', rec.id, rec.owner_key, rec.verb, problems);
    }
    const allComments = await db.selectFrom('comments').innerJoin('posts', 'posts.id', 'comments.post_id').select(['comments.id', 'comments.is_deleted', 'comments.updated_at', 'comments.parent_id', 'comments.author_id', 'posts.author_id as post_author']).execute();
    for (const c of allComments) {
      const contrib = contributions.find((x) => x.source_key === `comment:${c.id}`);
      const shouldExist = c.parent_id === null && c.author_id !== c.post_author;
      if (!shouldExist && contrib) console.log('COMMENT PROBLEM unexpected contribution', c.id);
      if (shouldExist && c.is_deleted === 0 && !contrib) console.log('COMMENT PROBLEM missing contribution', c.id);
      if (shouldExist && c.is_deleted === 1 && contrib) {
        const rec = records.find((r) => Number(r.id) === Number(contrib.record_id));
        if (rec && Number(c.updated_at) - Number(rec.window_start) <= 10 * DAY_MS - 5) console.log('COMMENT PROBLEM deleted but kept', c.id);
      }
    }
    const allPosts = await db.selectFrom('posts').selectAll().execute();
    for (const p of allPosts) {
      const contrib = contributions.find((x) => x.source_key === `post:${p.id}`);
      if (p.community_id === null && contrib) console.log('POST PROBLEM feed contrib');
      if (p.community_id !== null && p.is_deleted === 0 && !contrib) console.log('POST PROBLEM missing', p.id);
      if (p.is_deleted === 1 && contrib) {
        const rec = records.find((r) => Number(r.id) === Number(contrib.record_id));
        if (rec && Number(p.updated_at) - Number(rec.window_start) <= 10 * DAY_MS) console.log('POST PROBLEM deleted but kept', p.id);
      }
    }
    const likes = await db.selectFrom('post_reactions').innerJoin('posts', 'posts.id', 'post_reactions.post_id').select(['post_reactions.id', 'post_reactions.reaction_name', 'post_reactions.user_id', 'posts.author_id']).execute();
    for (const l of likes) {
      const contrib = contributions.find((x) => x.source_key === `like:${l.id}`);
      if (l.reaction_name === 'like' && l.user_id !== l.author_id && !contrib) console.log('LIKE PROBLEM missing', l.id);
    }
    for (const c of contributions) if (c.source_key.startsWith('like:') && !likes.some((l) => `like:${l.id}` === c.source_key)) {
      const rec = records.find((r) => Number(r.id) === Number(c.record_id));
      console.log('LIKE kept after unlike (ok only if removal after window)', c.source_key, 'window age at now', (now - Number(rec?.window_start)) / DAY_MS);
    }
    console.log('records', records.length, 'contributions', contributions.length, 'stints', stints.length, 'days', offset / DAY_MS);
    for (const reader of users) {
      const expected = expectedOf(reader);
      const got = (await kit.allHistory(reader)).map(shape);
      // Kysely path
      const kPages: ReturnType<typeof shape>[] = [];
      let after: number | undefined;
      for (let i = 0; i < 100; i += 1) {
        const page = await kysely.history(reader.userId, after);
        kPages.push(...page.views.map((v) => ({ key: `${v.record.verb}/${v.record.target_id}/${v.record.window_start}`, lastUpdate: v.lastUpdate, actors: v.actors.map((a) => a.id), actorsCount: v.actorsCount, hasRead: v.hasRead })));
        if (page.lastRecordDate === null) break;
        after = page.lastRecordDate;
      }
      const a = JSON.stringify(expected);
      if (a !== JSON.stringify(got) || a !== JSON.stringify(kPages)) {
        mismatches += 1;
        console.log('MISMATCH for', reader.userId, 'expected', expected.length, 'got', got.length, 'kysely', kPages.length);
        const n = Math.max(expected.length, got.length);
        for (let i = 0; i < n; i += 1) {
          const e = JSON.stringify(expected[i]);
          const g = JSON.stringify(got[i]);
          if (e !== g) {
            console.log(i, '\n  exp', e, '\n  got', g);
          }
        }
      } else console.log('ok', reader.userId, expected.length);
    }
    expect(mismatches).toBe(0);
  });
});
