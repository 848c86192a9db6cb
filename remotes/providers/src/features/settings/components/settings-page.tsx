import { Box, Button, Flex, Heading, HStack, IconButton, Input, Skeleton, Stack, Text } from '@chakra-ui/react';
import { errorMessage, hasPermission, mayCall, NoPermission, notify, PageFrame, SCREENS, useUser } from '@paygate/sdk';
import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useSettingKeys } from '../api/get-setting-keys';
import type { SettingKey } from '../api/types';
import { SettingDetail } from './setting-detail';

/** The toast of a settings list that could not be read (spec 02 §8). */
export const REFRESH_FAILED = 'Failed to refresh settings list';

/** SettingsPage edits the gateway's live settings (spec 02 §2 "Settings", Settings Access). */
export function SettingsPage() {
  const user = useUser();
  // The route guard already sends users without Settings Access away; the page says so itself too.
  if (!user || !hasPermission(user, 'Settings Access')) return <NoPermission />;
  return <Settings canEdit={mayCall(user, 'POST /api/v1/settings/{key}')} />;
}

function Settings({ canEdit }: { canEdit: boolean }) {
  const keys = useSettingKeys();
  const [params, setParams] = useSearchParams();
  const selected = params.get('key');
  const [search, setSearch] = useState('');
  const [collapsed, setCollapsed] = useState(false);

  useEffect(() => {
    if (keys.isError) notify.error(REFRESH_FAILED, errorMessage(keys.error, 'Unknown error'));
  }, [keys.isError, keys.errorUpdatedAt, keys.error]);

  const list = useMemo(() => keys.data ?? [], [keys.data]);
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    if (!q) return list;
    return list.filter((k) => k.key.toLowerCase().includes(q) || k.description.toLowerCase().includes(q));
  }, [list, search]);
  const current = list.find((k) => k.key === selected) ?? null;

  function select(k: SettingKey) {
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        next.set('key', k.key);
        return next;
      },
      { replace: true },
    );
  }

  return (
    <PageFrame title={SCREENS.settings.title}>
      <Flex gap={6} align="start" direction={{ base: 'column', md: 'row' }}>
        <Box
          as="nav"
          aria-label="Setting keys"
          w={collapsed ? 'auto' : { base: 'full', md: '72' }}
          flexShrink={0}
          borderWidth="1px"
          borderRadius="md"
          p={3}
        >
          <HStack justify="space-between" mb={collapsed ? 0 : 3} gap={1}>
            {!collapsed && (
              <Heading as="h3" size="sm">
                Keys
              </Heading>
            )}
            <HStack gap={1}>
              <IconButton
                size="xs"
                variant="ghost"
                aria-label="Refresh settings list"
                title="Refresh"
                loading={keys.isFetching}
                onClick={() => void keys.refetch()}
              >
                <span aria-hidden>⟳</span>
              </IconButton>
              <IconButton
                size="xs"
                variant="ghost"
                aria-label={collapsed ? 'Expand settings list' : 'Collapse settings list'}
                aria-expanded={!collapsed}
                aria-controls="setting-keys-list"
                title={collapsed ? 'Expand' : 'Collapse'}
                onClick={() => setCollapsed((c) => !c)}
              >
                <span aria-hidden>{collapsed ? '»' : '«'}</span>
              </IconButton>
            </HStack>
          </HStack>
          {!collapsed && (
            <Stack gap={3} id="setting-keys-list">
              <Input size="sm" type="search" placeholder="Search settings" aria-label="Search settings" value={search} onChange={(e) => setSearch(e.target.value)} />
              {keys.isPending ? (
                <Stack gap={2} aria-busy="true" aria-label="Loading settings">
                  {[0, 1, 2].map((i) => (
                    <Skeleton key={i} height="8" />
                  ))}
                </Stack>
              ) : list.length === 0 ? (
                <Text fontSize="sm" color="fg.muted">
                  {keys.isError ? 'The settings could not be loaded. Use Refresh to try again.' : 'There are no settings.'}
                </Text>
              ) : shown.length === 0 ? (
                <Text fontSize="sm" color="fg.muted">
                  No settings match “{search.trim()}”.
                </Text>
              ) : (
                <Stack as="ul" gap={1} listStyleType="none">
                  {shown.map((k) => (
                    <li key={k.key}>
                      <Button
                        size="sm"
                        w="full"
                        justifyContent="start"
                        variant={k.key === selected ? 'subtle' : 'ghost'}
                        aria-current={k.key === selected ? 'true' : undefined}
                        title={k.description}
                        onClick={() => select(k)}
                      >
                        {k.key}
                      </Button>
                    </li>
                  ))}
                </Stack>
              )}
            </Stack>
          )}
        </Box>
        <Box flex="1" minW={0} w="full">
          {current ? (
            <SettingDetail key={current.key} setting={current} canEdit={canEdit} />
          ) : (
            !keys.isPending && (
              <Text color="fg.muted">{selected && list.length > 0 ? `There is no setting named ${selected}.` : 'Select a setting to view or change it.'}</Text>
            )
          )}
        </Box>
      </Flex>
    </PageFrame>
  );
}
