import { Button, Center, Loader, Stack } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ComponentType, lazy, Suspense, useEffect, useLayoutEffect } from 'react';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { meQuery } from './api/me.js';
import { rememberReturnPath } from './auth/return-path.js';
import { homePath, maySee, type ScreenId } from './auth/screens.js';
import { SessionProvider, useSession, useSignedIn } from './auth/session.js';
import { BASE_PATH, clearCredentials } from './auth/tokens.js';
import { AppFrame } from './components/AppFrame.js';
import { ErrorNote } from './components/ErrorNote.js';
import { Page } from './components/Page.js';
import { CallbackScreen } from './screens/CallbackScreen.js';
import { LoginScreen } from './screens/LoginScreen.js';

// Each screen is its own chunk, fetched when first opened: the first load carries the sign-in and the frame only.
const QueueScreen = lazy(() => import('./screens/QueueScreen.js').then((module) => ({ default: module.QueueScreen })));
const UsersScreen = lazy(() => import('./screens/UsersScreen.js').then((module) => ({ default: module.UsersScreen })));
const ChannelsScreen = lazy(() => import('./screens/ChannelsScreen.js').then((module) => ({ default: module.ChannelsScreen })));
const RulesScreen = lazy(() => import('./screens/RulesScreen.js').then((module) => ({ default: module.RulesScreen })));
const RolesScreen = lazy(() => import('./screens/RolesScreen.js').then((module) => ({ default: module.RolesScreen })));
const AppsScreen = lazy(() => import('./screens/AppsScreen.js').then((module) => ({ default: module.AppsScreen })));
const OverviewScreen = lazy(() => import('./screens/OverviewScreen.js').then((module) => ({ default: module.OverviewScreen })));
const TrayScreen = lazy(() => import('./screens/TrayScreen.js').then((module) => ({ default: module.TrayScreen })));
const AuditScreen = lazy(() => import('./screens/AuditScreen.js').then((module) => ({ default: module.AuditScreen })));
const SessionsScreen = lazy(() => import('./screens/SessionsScreen.js').then((module) => ({ default: module.SessionsScreen })));

/** A screen behind its right: someone without it sees why, not an empty page. */
function guarded(screen: ScreenId, Screen: ComponentType) {
  return function Guarded() {
    const session = useSession();
    if (!maySee(session, screen)) return <Page title="Not available">You do not have the right to open this screen.</Page>;
    return (
      <Suspense
        fallback={
          <Center p="xl">
            <Loader aria-label="Loading the screen" />
          </Center>
        }
      >
        <Screen />
      </Suspense>
    );
  };
}

const Queue = guarded('queue', QueueScreen);
const Users = guarded('users', UsersScreen);
const Channels = guarded('channels', ChannelsScreen);
const Rules = guarded('rules', RulesScreen);
const Roles = guarded('roles', RolesScreen);
const Apps = guarded('apps', AppsScreen);
const Overview = guarded('overview', OverviewScreen);
const Tray = guarded('tray', TrayScreen);
const Audit = guarded('audit', AuditScreen);
const Sessions = guarded('sessions', SessionsScreen);

function Home() {
  const path = homePath(useSession());
  if (path === null) return <Page title="Nothing to show">Your account holds none of the rights the console's screens need.</Page>;
  return <Redirect to={path} replace />;
}

function SignedInScreens() {
  return (
    <AppFrame>
      <Switch>
        <Route path="/" component={Home} />
        <Route path="/queue" component={Queue} />
        <Route path="/users/:userId?" component={Users} />
        <Route path="/channels/:channelId?" component={Channels} />
        <Route path="/rules" component={Rules} />
        <Route path="/roles" component={Roles} />
        <Route path="/apps" component={Apps} />
        <Route path="/overview" component={Overview} />
        <Route path="/tray" component={Tray} />
        <Route path="/audit" component={Audit} />
        <Route path="/sessions" component={Sessions} />
        <Route>
          <Page title="Page not found">There is no screen at this address.</Page>
        </Route>
      </Switch>
    </AppFrame>
  );
}

/** Loads GET /api/v2/me, then opens the screens the person may see. */
function SignedIn() {
  const me = useQuery(meQuery());
  if (me.isPending) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (me.error) {
    return (
      <Center h="100vh" p="md">
        <Stack maw={480}>
          <ErrorNote error={me.error} title="Could not load your account" />
          <Button onClick={clearCredentials}>Back to sign-in</Button>
        </Stack>
      </Center>
    );
  }
  return (
    <SessionProvider me={me.data}>
      <SignedInScreens />
    </SessionProvider>
  );
}

/** Signed out on a console page: remembers it, to open it once signed in, and shows the sign-in screen. */
function ToSignIn() {
  const [location, navigate] = useLocation();
  const search = useSearch();
  useLayoutEffect(() => {
    rememberReturnPath(search === '' ? location : `${location}?${search}`);
    navigate('/login', { replace: true });
  }, [location, search, navigate]);
  return null;
}

function Gate() {
  const signedIn = useSignedIn();
  const queryClient = useQueryClient();
  // What was loaded for one credential is never shown to the next.
  useEffect(() => {
    if (!signedIn) queryClient.clear();
  }, [signedIn, queryClient]);
  return (
    <Switch>
      <Route path="/login" component={LoginScreen} />
      <Route path="/callback" component={CallbackScreen} />
      <Route>{signedIn ? <SignedIn /> : <ToSignIn />}</Route>
    </Switch>
  );
}

export function App() {
  return (
    <Router base={BASE_PATH}>
      <Gate />
    </Router>
  );
}
