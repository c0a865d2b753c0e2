import { useParams } from 'wouter';
import { useSession } from '../auth/session.js';
import { Page } from '../components/Page.js';
import { ChannelList } from './channels/ChannelList.js';
import { ChannelPage } from './channels/ChannelPage.js';
import { CreateChannel } from './channels/CreateChannel.js';

/**
 * The channel id of the path. wouter decodes the path with decodeURI, which leaves reserved characters
 * (`:`, `@`, `+`, ...) encoded; ids never hold `%`, so one more decode gives the id back.
 */
function idOf(param: string): string {
  try {
    return decodeURIComponent(param);
  } catch {
    return param;
  }
}

/** /channels (every channel, filtered and paged; created here) and /channels/:channelId (one channel). */
export function ChannelsScreen() {
  const { channelId } = useParams<{ channelId?: string }>();
  const { can } = useSession();
  if (channelId !== undefined) return <ChannelPage key={channelId} channelId={idOf(channelId)} />;
  return (
    <Page title="Channels" actions={can('EDIT_CHANNEL') ? <CreateChannel /> : undefined}>
      <ChannelList />
    </Page>
  );
}
