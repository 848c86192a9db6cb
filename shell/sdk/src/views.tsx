import { Alert, Badge, Button, Checkbox, Field, HStack, Input, Menu, NativeSelect, Portal, Stack, Text } from '@chakra-ui/react';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import type { GetViewResponseJson, ListViewsResponseJson, ViewJson } from '@paygate/gen/gateway/v1/views_pb';
import { hasPermission, type Permission, type User } from './access';
import { errorMessage } from './api-error';
import { ConfirmDialog } from './confirm-dialog';
import { api, session } from './console';
import { DialogFrame } from './dialog-frame';
import { mayCall } from './may-call';
import { notify } from './toast';

// Saved views (issue 29, docs/contracts-views.md): the Views bar above the
// Transactions, Frauds and Files lists, and its calls (ViewService, REST on
// the gateway under /api/v1/views).

/** SavedViewList names a list that has saved views. */
export type SavedViewList = 'transactions' | 'frauds' | 'files';

/** SavedView is a view as the server answers it (ViewJson with its identity made sure; the rest may be absent when empty). */
export interface SavedView {
  id: string;
  list: SavedViewList;
  name: string;
  /** The list's query string, without `view` and the page. */
  query?: string;
  /** The visible columns' keys in order; empty: the list's default columns. */
  columns?: string[];
  sort?: string;
  /** 0: the list's default. */
  pageSize?: number;
  /** Empty: the user's zone. */
  timeZone?: string;
  shared?: boolean;
  isDefault?: boolean;
  mine?: boolean;
  ownerName?: string;
  createdUtc?: string;
  updatedUtc?: string;
}

interface ViewResponse {
  view?: ViewJson;
}

const LISTS: readonly string[] = ['transactions', 'frauds', 'files'];

/** savedView reads a view of the server's answer (protojson leaves empty fields out). */
function savedView(v: ViewJson | undefined, fallback: SavedViewList): SavedView | undefined {
  if (!v?.id) return undefined;
  return { ...v, id: v.id, name: v.name ?? '', list: v.list && LISTS.includes(v.list) ? (v.list as SavedViewList) : fallback };
}

/** The permission each list's views need (the contract's "Permissions"). */
const LIST_PERMISSION: Record<SavedViewList, Permission> = {
  transactions: 'Get Transactions',
  frauds: 'View Frauds',
  files: 'Files Access',
};

/** The query key of the saved views; ['views', list] is one list's, ['views', 'one', id] one view. */
export const VIEWS_KEY = ['views'] as const;

/** viewsQuery reads the caller's views of a list, own first, then the shared ones (GET /api/v1/views?list=). */
export const viewsQuery = (list: SavedViewList) =>
  queryOptions({
    queryKey: [...VIEWS_KEY, list],
    queryFn: async ({ signal }) =>
      ((await api.get<ListViewsResponseJson>('gateway', '/api/v1/views', { signal, query: { list } })).views ?? []).flatMap((v) => savedView(v, list) ?? []),
  });

/** viewQuery reads one view as the caller may open it now: its query without the filters they lost, named in droppedFilters (GET /api/v1/views/{id}). */
export const viewQuery = (id: string) =>
  queryOptions({
    queryKey: [...VIEWS_KEY, 'one', id],
    queryFn: async ({ signal }) => {
      const got = await api.get<GetViewResponseJson>('gateway', `/api/v1/views/${encodeURIComponent(id)}`, { signal });
      const view = savedView(got.view, 'transactions');
      if (!view) throw new Error('The view could not be read.');
      return { view, droppedFilters: got.droppedFilters ?? [] };
    },
  });

/** The query parameters that are never part of a view: the open view and the page. */
const NOT_FILTERS = new Set(['view', 'page', 'currentPage']);

/**
 * normalizeViewQuery writes a list's filters in one canonical form, so two
 * queries meaning the same compare equal: without the view and the page,
 * without empty values, sorted by name then value.
 */
export function normalizeViewQuery(query: URLSearchParams | string): string {
  const params = typeof query === 'string' ? new URLSearchParams(query) : query;
  const entries = [...params.entries()].filter(([k, v]) => !NOT_FILTERS.has(k) && v !== '');
  entries.sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : av > bv ? 1 : 0) : ak < bk ? -1 : 1));
  return new URLSearchParams(entries).toString();
}

/**
 * keepView returns `next` (a list's new query) with the open view of
 * `current` kept: every filter change of a list goes through it, so editing a
 * filter never closes the view (it shows as edited).
 */
export function keepView(next: URLSearchParams, current: URLSearchParams): URLSearchParams {
  const view = current.get('view');
  if (!view || next.has('view')) return next;
  const out = new URLSearchParams([['view', view]]);
  for (const [k, v] of next.entries()) out.append(k, v);
  return out;
}

/** The layout a view keeps besides its filters; what the list does not have stays empty. */
export interface ViewLayout {
  columns?: string[];
  sort?: string;
  /** 0 or absent: the list's default. */
  pageSize?: number;
  /** Empty or absent: the user's zone. */
  timeZone?: string;
}

/** AppliedView is what a list applies when a view opens. */
export interface AppliedView extends Required<ViewLayout> {
  id: string;
  /** The view's filters (those the caller lost left out). */
  query: URLSearchParams;
}

/** ViewsBarProps configure the Views bar of a list. */
export interface ViewsBarProps {
  list: SavedViewList;
  user: User | null;
  /** The list's current filters, in the form its views keep them (no view, no page). */
  filterParams: URLSearchParams;
  /**
   * filterParamsOf reads the list's filters, in the form of filterParams,
   * from a URL query. A list that keeps its filters in the URL gives it: Save
   * and Save as then save the filters of the URL at the click, not those of
   * the bar's last render (react-router renders a navigation in a
   * transition, so a click right after a filter change can come before the
   * render that shows it). Without it the bar saves filterParams.
   */
  filterParamsOf?: (query: URLSearchParams) => URLSearchParams;
  /** The list's current layout, saved with its filters. */
  layout?: ViewLayout;
  /**
   * onApply fills the list from a view. The bar calls it once per opening,
   * when the URL holds `view` and nothing else (a link, or a choice in the
   * menu); a list that keeps its filters in the URL writes them with one
   * replace, keeping `view`.
   */
  onApply: (view: AppliedView) => void;
}

/** OpenView is the list's open view, as the URL names it. */
export interface OpenView {
  /** The URL's `view`; '' when no view is open. */
  viewId: string;
  /** The view as the caller may open it now, once read. */
  view?: SavedView;
  /** The list's filters differ from the view's. */
  edited: boolean;
}

/**
 * useOpenView reads the list's open view (the URL's `view`) and whether the
 * list's filters still are the view's: a page that acts on "the open,
 * unedited view" (the Transactions list's watchlist pin) asks it.
 */
export function useOpenView(list: SavedViewList, user: User | null, filterParams: URLSearchParams): OpenView {
  const [params] = useSearchParams();
  const viewId = params.get('view') ?? '';
  const open = useQuery({ ...viewQuery(viewId), enabled: mayOpenViews(user, list) && viewId !== '' });
  const answered = open.data?.view.id === viewId ? open.data : undefined;
  if (!answered) return { viewId, edited: false };
  return { viewId, view: answered.view, edited: normalizeViewQuery(filterParams) !== normalizeViewQuery(answered.view.query ?? '') };
}

/** mayOpenViews: the views calls' rule lets the user in, and they hold the list's own permission (the handler's check). */
function mayOpenViews(user: User | null, list: SavedViewList): boolean {
  return mayCall(user, 'GET /api/v1/views') && hasPermission(user, LIST_PERMISSION[list]);
}

const byName = (a: SavedView, b: SavedView) => a.name.localeCompare(b.name);

function droppedText(names: string[]): string {
  if (names.length === 1) return `This view's ${names[0]} filter was dropped: you can no longer see it.`;
  const list = `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return `This view's ${list} filters were dropped: you can no longer see them.`;
}

function bodyOf(v: SavedView, patch: Partial<SavedView>) {
  const w = { ...v, ...patch };
  return { name: w.name, query: w.query ?? '', columns: w.columns ?? [], sort: w.sort ?? '', pageSize: w.pageSize ?? 0, timeZone: w.timeZone ?? '', shared: !!w.shared };
}

/**
 * ViewsBar is the Views bar above a list (docs/contracts-views.md "The
 * console"): a menu of the user's views and the shared ones, the open view
 * with an "edited" mark while the list's filters differ from it, and Save,
 * Save as…, Rename, Set as default, Share and Delete. The open view is the
 * URL's `view` parameter. Opening the list with no query at all opens the
 * user's default view. It renders nothing for a user without the list's
 * permission.
 */
export function ViewsBar({ list, user, filterParams, filterParamsOf, layout = {}, onApply }: ViewsBarProps) {
  const enabled = mayOpenViews(user, list);
  // Writing calls have rules of their own (today the same as reading's).
  const mayWrite = mayCall(user, 'POST /api/v1/views') && mayCall(user, 'PUT /api/v1/views/{id}');
  const mayDelete = mayCall(user, 'DELETE /api/v1/views/{id}');
  const mayDefault = mayCall(user, 'PUT /api/v1/views/defaults/{list}');
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const viewId = params.get('view') ?? '';
  const bare = [...params.keys()].every((k) => k === 'view');
  const views = useQuery({ ...viewsQuery(list), enabled });
  const open = useQuery({ ...viewQuery(viewId), enabled: enabled && viewId !== '' });
  // The view whose filters the list shows (applied, or already in the URL when it opened).
  const [appliedId, setAppliedId] = useState<string | null>(null);
  const [defaultTried, setDefaultTried] = useState(false);
  const [dialog, setDialog] = useState<'saveAs' | 'rename' | 'delete' | null>(null);

  // Open a view: once per opening, and only when the URL has nothing but `view`.
  const openData = open.data;
  useEffect(() => {
    if (!viewId || !openData || openData.view.id !== viewId || appliedId === viewId) return;
    setAppliedId(viewId);
    if (!bare) return; // a link with filters keeps them (an edited view)
    const v = openData.view;
    onApply({ id: v.id, query: new URLSearchParams(v.query ?? ''), columns: v.columns ?? [], sort: v.sort ?? '', pageSize: v.pageSize ?? 0, timeZone: v.timeZone ?? '' });
  }, [viewId, openData, appliedId, bare, onApply]);

  // The list opened with no query at all: open the default view, if any (once).
  const listed = views.data;
  const pristine = params.toString() === '' && normalizeViewQuery(filterParams) === '';
  useEffect(() => {
    if (defaultTried || !listed) return;
    setDefaultTried(true);
    const d = listed.find((v) => v.isDefault);
    if (pristine && d) setParams({ view: d.id }, { replace: true });
  }, [defaultTried, listed, pristine, setParams]);

  // The URL's query and the list's filters as they are now, read when a button is clicked.
  const queryNow = () => new URLSearchParams(new URL(session.currentRoute(), 'http://console.invalid').search);
  const filtersNow = () => (filterParamsOf ? filterParamsOf(queryNow()) : filterParams);

  const invalidate = () => client.invalidateQueries({ queryKey: VIEWS_KEY });
  const create = useMutation({
    mutationFn: async (input: { name: string; shared: boolean }) => {
      const body = {
        list,
        name: input.name,
        query: normalizeViewQuery(filtersNow()),
        columns: layout.columns ?? [],
        sort: layout.sort ?? '',
        pageSize: layout.pageSize ?? 0,
        timeZone: layout.timeZone ?? '',
        shared: input.shared,
      };
      return savedView((await api.post<ViewResponse>('gateway', '/api/v1/views', body)).view, list);
    },
  });
  const update = useMutation({
    mutationFn: async ({ id, body }: { id: string; body: ReturnType<typeof bodyOf> }) =>
      savedView((await api.request<ViewResponse>('gateway', `/api/v1/views/${encodeURIComponent(id)}`, { method: 'PUT', body })).view, list),
  });
  const setDefault = useMutation({
    mutationFn: async (id: string) => api.request<ViewResponse>('gateway', `/api/v1/views/defaults/${list}`, { method: 'PUT', body: { viewId: id } }),
  });
  const remove = useMutation({
    mutationFn: async (id: string) => api.request<unknown>('gateway', `/api/v1/views/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  });

  if (!enabled) return null;

  const all = listed ?? [];
  const own = all.filter((v) => v.mine).sort(byName);
  const shared = all.filter((v) => !v.mine).sort(byName);
  // The open view: the menu's entry (its stored fields), else what GetView answered.
  const current = viewId ? (all.find((v) => v.id === viewId) ?? (openData?.view.id === viewId ? openData.view : undefined)) : undefined;
  const answered = openData?.view.id === viewId ? openData : undefined;
  const edited = !!answered && appliedId === viewId && normalizeViewQuery(filterParams) !== normalizeViewQuery(answered.view.query ?? '');
  const mine = !!current?.mine;
  const busy = create.isPending || update.isPending || setDefault.isPending || remove.isPending;

  const choose = (id: string) => {
    setAppliedId(null);
    if (id) {
      setParams({ view: id });
      return;
    }
    // No view: the list keeps its filters.
    const next = new URLSearchParams(params);
    next.delete('view');
    setParams(next);
  };

  const save = () => {
    if (!current) return;
    update.mutate(
      { id: current.id, body: bodyOf(current, { query: normalizeViewQuery(filtersNow()), columns: layout.columns ?? [], sort: layout.sort ?? '', pageSize: layout.pageSize ?? 0, timeZone: layout.timeZone ?? '' }) },
      {
        onSuccess: (v) => {
          if (v) client.setQueryData(viewQuery(v.id).queryKey, { view: v, droppedFilters: [] });
          void invalidate();
          notify.success('View saved', `${current.name} now has the list's current filters.`);
        },
        onError: (err) => notify.error('Failed to save the view', errorMessage(err, 'Unknown error')),
      },
    );
  };

  const change = (patch: Partial<SavedView>, done: string, failed: string) => {
    if (!current) return;
    update.mutate(
      { id: current.id, body: bodyOf(current, patch) },
      {
        onSuccess: () => {
          void invalidate();
          notify.success(done);
        },
        onError: (err) => notify.error(failed, errorMessage(err, 'Unknown error')),
      },
    );
  };

  const toggleDefault = () => {
    if (!current) return;
    const clearing = !!current.isDefault;
    setDefault.mutate(clearing ? '0' : current.id, {
      onSuccess: () => {
        void invalidate();
        notify.success(clearing ? 'Default view cleared' : 'Default view set', clearing ? `The list opens without a view.` : `The list opens with ${current.name}.`);
      },
      onError: (err) => notify.error(clearing ? 'Failed to clear the default view' : 'Failed to set the default view', errorMessage(err, 'Unknown error')),
    });
  };

  const confirmDelete = () => {
    if (!current) return;
    remove.mutate(current.id, {
      onSuccess: () => {
        setDialog(null);
        client.removeQueries({ queryKey: viewQuery(current.id).queryKey });
        void invalidate();
        notify.success('View deleted', `${current.name} was deleted.`);
        // The list keeps its filters; only the view closes.
        const next = new URLSearchParams(params);
        next.delete('view');
        setAppliedId(null);
        setParams(next, { replace: true });
      },
      onError: (err) => {
        setDialog(null);
        notify.error('Failed to delete the view', errorMessage(err, 'Unknown error'));
      },
    });
  };

  const label = (v: SavedView) => `${v.name}${v.isDefault ? ' (default)' : ''}`;

  return (
    <Stack gap="2" as="section" aria-label="Views">
      <HStack gap="2" wrap="wrap" align="center">
        <NativeSelect.Root size="sm" w="64" disabled={views.isPending}>
          <NativeSelect.Field aria-label="Saved view" value={viewId} onChange={(e) => choose(e.target.value)}>
            <option value="">{views.isPending ? 'Loading views…' : 'No view'}</option>
            {viewId && !all.some((v) => v.id === viewId) && <option value={viewId}>{current ? label(current) : `View ${viewId}`}</option>}
            {own.length > 0 && (
              <optgroup label="My views">
                {own.map((v) => (
                  <option key={v.id} value={v.id}>
                    {label(v)}
                  </option>
                ))}
              </optgroup>
            )}
            {shared.length > 0 && (
              <optgroup label="Shared with me">
                {shared.map((v) => (
                  <option key={v.id} value={v.id}>
                    {`${label(v)} (shared${v.ownerName ? ` by ${v.ownerName}` : ''})`}
                  </option>
                ))}
              </optgroup>
            )}
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
        {current && (
          <Text fontWeight="semibold" data-part="view-name">
            {current.name}
          </Text>
        )}
        {current?.shared && (
          <Badge size="sm" colorPalette="blue">
            shared
          </Badge>
        )}
        {edited && (
          <Badge size="sm" colorPalette="orange" aria-label="Edited: the filters differ from the view" data-part="view-edited">
            edited
          </Badge>
        )}
        {current && mine && mayWrite && edited && (
          <Button size="sm" onClick={save} loading={update.isPending} disabled={busy}>
            Save
          </Button>
        )}
        {mayWrite && (
          <Button size="sm" variant="outline" onClick={() => setDialog('saveAs')} disabled={busy}>
            Save as…
          </Button>
        )}
        {current && (mayDefault || (mine && (mayWrite || mayDelete))) && (
          <Menu.Root>
            <Menu.Trigger asChild>
              <Button size="sm" variant="outline" aria-label={`Actions of the view ${current.name}`} disabled={busy}>
                View actions
              </Button>
            </Menu.Trigger>
            <Portal>
              <Menu.Positioner>
                <Menu.Content>
                  {mine && mayWrite && (
                    <Menu.Item value="rename" onSelect={() => setDialog('rename')}>
                      Rename
                    </Menu.Item>
                  )}
                  {mayDefault && (
                    <Menu.Item value="default" onSelect={toggleDefault}>
                      {current.isDefault ? 'Clear default' : 'Set as default'}
                    </Menu.Item>
                  )}
                  {mine && mayWrite && (
                    <Menu.Item value="share" onSelect={() => change({ shared: !current.shared }, current.shared ? 'The view is no longer shared' : 'The view is shared with your team', current.shared ? 'Failed to stop sharing the view' : 'Failed to share the view')}>
                      {current.shared ? 'Stop sharing' : 'Share'}
                    </Menu.Item>
                  )}
                  {mine && mayDelete && (
                    <Menu.Item value="delete" color="fg.error" onSelect={() => setDialog('delete')}>
                      Delete
                    </Menu.Item>
                  )}
                </Menu.Content>
              </Menu.Positioner>
            </Portal>
          </Menu.Root>
        )}
      </HStack>
      {views.isError && (
        <Text color="fg.error" role="alert">
          The saved views could not be loaded: {errorMessage(views.error, 'Unknown error')}
        </Text>
      )}
      {viewId && open.isError && (
        <Text color="fg.error" role="alert">
          The view could not be opened: {errorMessage(open.error, 'Unknown error')}
        </Text>
      )}
      {answered && answered.droppedFilters.length > 0 && (
        <Alert.Root status="warning" size="sm" data-part="view-dropped">
          <Alert.Indicator />
          <Alert.Title>{droppedText(answered.droppedFilters)}</Alert.Title>
        </Alert.Root>
      )}
      {dialog === 'saveAs' && (
        <NameDialog
          title="Save view as"
          submitLabel="Save"
          initialName={current ? `${current.name} (copy)` : ''}
          withShare
          pending={create.isPending}
          onClose={() => setDialog(null)}
          onSubmit={(name, share, fail) =>
            create.mutate(
              { name, shared: share },
              {
                onSuccess: (v) => {
                  setDialog(null);
                  void invalidate();
                  notify.success('View saved', `${name} was saved${share ? ' and shared with your team' : ''}.`);
                  if (!v) return;
                  // Open it: the list already shows its filters, so nothing is applied.
                  client.setQueryData(viewQuery(v.id).queryKey, { view: v, droppedFilters: [] });
                  setAppliedId(v.id);
                  const next = filterParamsOf ? queryNow() : new URLSearchParams(params);
                  next.set('view', v.id);
                  setParams(next);
                },
                onError: (err) => fail(errorMessage(err, 'The view could not be saved.')),
              },
            )
          }
        />
      )}
      {dialog === 'rename' && current && (
        <NameDialog
          title="Rename view"
          submitLabel="Rename"
          initialName={current.name}
          pending={update.isPending}
          onClose={() => setDialog(null)}
          onSubmit={(name, _share, fail) =>
            update.mutate(
              { id: current.id, body: bodyOf(current, { name }) },
              {
                onSuccess: (v) => {
                  setDialog(null);
                  if (v && answered) client.setQueryData(viewQuery(v.id).queryKey, { ...answered, view: { ...answered.view, name: v.name } });
                  void invalidate();
                  notify.success('View renamed', `The view is now ${name}.`);
                },
                onError: (err) => fail(errorMessage(err, 'The view could not be renamed.')),
              },
            )
          }
        />
      )}
      {dialog === 'delete' && current && (
        <ConfirmDialog
          title="Delete view"
          message={`Delete the view ${current.name}? ${current.shared ? 'Your team will no longer see it. ' : ''}This cannot be undone.`}
          confirmLabel="Delete"
          destructive
          pending={remove.isPending}
          onCancel={() => setDialog(null)}
          onConfirm={confirmDelete}
        />
      )}
    </Stack>
  );
}

interface NameDialogProps {
  title: string;
  submitLabel: string;
  initialName: string;
  withShare?: boolean;
  pending: boolean;
  onClose: () => void;
  /** fail shows the server's refusal in the dialog, which stays open. */
  onSubmit: (name: string, share: boolean, fail: (message: string) => void) => void;
}

/** NameDialog asks a view's name (and, for a new view, whether to share it). */
function NameDialog({ title, submitLabel, initialName, withShare, pending, onClose, onSubmit }: NameDialogProps) {
  const [name, setName] = useState(initialName);
  const [share, setShare] = useState(false);
  const [problem, setProblem] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setProblem('Name is required.');
    if (trimmed.length > 100) return setProblem('Name must be at most 100 characters.');
    setProblem('');
    onSubmit(trimmed, share, setProblem);
  };
  return (
    <DialogFrame
      title={title}
      size="sm"
      onClose={onClose}
      footer={
        <HStack gap="2">
          <Button variant="outline" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" form="view-name" loading={pending}>
            {submitLabel}
          </Button>
        </HStack>
      }
    >
      <form id="view-name" onSubmit={submit} noValidate>
        <Stack gap="4">
          <Field.Root required invalid={!!problem}>
            <Field.Label>Name</Field.Label>
            <Input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoFocus />
            <Field.ErrorText>{problem}</Field.ErrorText>
          </Field.Root>
          {withShare && (
            <Checkbox.Root checked={share} onCheckedChange={(e) => setShare(!!e.checked)}>
              <Checkbox.HiddenInput />
              <Checkbox.Control />
              <Checkbox.Label>Share with my team</Checkbox.Label>
            </Checkbox.Root>
          )}
        </Stack>
      </form>
    </DialogFrame>
  );
}
