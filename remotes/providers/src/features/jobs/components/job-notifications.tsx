import { Badge, Box, Button, HStack, List, Text } from '@chakra-ui/react';
import { formatDateTime } from '@paygate/sdk';
import { useId, useState } from 'react';
import type { JobNotification } from '../api/types';
import { notificationLevel } from '../utils/jobs';

/** LevelBadge names a notification's level (spec 02 §4) in its colour. */
export function LevelBadge({ level }: { level: number }) {
  const l = notificationLevel(level);
  return (
    <Badge colorPalette={l.palette} variant={l.variant} data-level={l.name} data-palette={l.palette} textTransform="capitalize" flexShrink={0}>
      {l.name}
    </Badge>
  );
}

interface Props {
  jobName: string;
  notifications: JobNotification[];
  zone: string;
}

/**
 * JobNotifications is the expander of a job's last notifications (newest
 * first, at most 50): a button that says how many there are and whether they
 * are shown, and the list it controls.
 */
export function JobNotifications({ jobName, notifications, zone }: Props) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  const count = notifications.length;
  if (count === 0) {
    return (
      <Text fontSize="sm" color="fg.muted">
        No notifications
      </Text>
    );
  }
  return (
    <Box w="full">
      <Button
        size="xs"
        variant="ghost"
        px={1}
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-label={`${open ? 'Hide' : 'Show'} ${count} notification${count === 1 ? '' : 's'} of ${jobName}`}
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden>{open ? '▾' : '▸'}</span>
        Notifications ({count})
      </Button>
      {open && (
        <List.Root
          as="ol"
          id={listId}
          aria-label={`Notifications of ${jobName}, newest first`}
          listStyleType="none"
          gap={1.5}
          mt={2}
          maxH="72"
          overflowY="auto"
          fontSize="sm"
        >
          {notifications.map((n, i) => (
            <List.Item key={i} display="block" borderBottomWidth={i === count - 1 ? 0 : '1px'} pb={1.5}>
              <HStack gap={2} align="center" wrap="wrap">
                <LevelBadge level={n.level} />
                {n.dateTimeUtc && (
                  <Text as="span" color="fg.muted" fontSize="xs">
                    {formatDateTime(n.dateTimeUtc, zone)}
                  </Text>
                )}
              </HStack>
              <Text whiteSpace="pre-wrap" wordBreak="break-word" mt={0.5}>
                {n.message}
              </Text>
            </List.Item>
          ))}
        </List.Root>
      )}
    </Box>
  );
}
