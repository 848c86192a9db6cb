import { Badge, Button, Card, HStack, Stack, Tag, Text, Wrap } from '@chakra-ui/react';
import { useId } from 'react';
import { READABLE_SOLID, READABLE_SOLID_BUTTON } from '../../../contrast';
import type { Collab } from '../api/types';
import {
  badgeSeverity,
  cashCount,
  cashCountSeverity,
  directionArrow,
  isCollabActive,
  SEVERITY_PALETTE,
  type Direction,
} from '../utils/collab-status';

/** CollabStatusBadge is the Active/Disabled badge with the arrow of the directions that are on. */
export function CollabStatusBadge({ collab }: { collab: Collab }) {
  const severity = badgeSeverity(collab);
  const arrow = directionArrow(collab);
  return (
    <Badge colorPalette={SEVERITY_PALETTE[severity]} variant="solid" {...READABLE_SOLID} data-severity={severity} size="md">
      {isCollabActive(collab) ? 'Active' : 'Disabled'}
      {arrow && (
        <span role="img" aria-label={arrow.label} title={arrow.label}>
          {arrow.arrow}
        </span>
      )}
    </Badge>
  );
}

/** CashCountTag shows a direction as enabled/total pay types, coloured per spec 01 §4. */
export function CashCountTag({ collab, direction }: { collab: Collab; direction: Direction }) {
  const count = cashCount(collab, direction);
  const severity = cashCountSeverity(count);
  const label = direction === 'in' ? 'Cash-in' : 'Cash-out';
  return (
    <Tag.Root colorPalette={SEVERITY_PALETTE[severity]} data-severity={severity} aria-label={`${label} ${count.enabled} of ${count.total} enabled`}>
      <Tag.Label>
        {label} {count.enabled}/{count.total}
      </Tag.Label>
    </Tag.Root>
  );
}

interface Props {
  collab: Collab;
  canViewFees: boolean;
  /** The user may enable and disable the collab (its call's rule). */
  canToggle: boolean;
  /** The collab's activeness is being changed. */
  toggling: boolean;
  onFees: () => void;
  onSettings: () => void;
  onLimits: () => void;
  onToggle: () => void;
}

/** CollabCard is one collab of the Providers page (spec 01 §2). */
export function CollabCard({ collab, canViewFees, canToggle, toggling, onFees, onSettings, onLimits, onToggle }: Props) {
  const titleId = useId();
  return (
    <Card.Root as="article" aria-labelledby={titleId} size="sm" variant="outline" data-collab-id={collab.id}>
      <Card.Header>
        <HStack justify="space-between" align="start" gap={3}>
          <Stack gap={0} minW={0} id={titleId}>
            <Text fontSize="sm" color="fg.muted" truncate>
              {collab.merchant.name}
              {collab.merchant.disabled && (
                <Badge ms={2} size="xs" colorPalette="red" variant="subtle">
                  Merchant disabled
                </Badge>
              )}
            </Text>
            <Text as="h3" fontWeight="semibold" fontSize="lg" truncate>
              {collab.provider.name}
            </Text>
          </Stack>
          <CollabStatusBadge collab={collab} />
        </HStack>
      </Card.Header>
      <Card.Body>
        <HStack gap={2}>
          <CashCountTag collab={collab} direction="in" />
          <CashCountTag collab={collab} direction="out" />
        </HStack>
      </Card.Body>
      <Card.Footer>
        <Wrap gap={2}>
          {canViewFees && (
            <Button size="xs" variant="outline" onClick={onFees}>
              Fees
            </Button>
          )}
          <Button size="xs" variant="outline" onClick={onSettings}>
            Settings
          </Button>
          <Button size="xs" variant="outline" onClick={onLimits}>
            Limits
          </Button>
          {canToggle && (
            <Button
              size="xs"
              variant="solid"
              colorPalette={collab.isEnabled ? 'red' : 'green'}
              {...READABLE_SOLID_BUTTON}
              onClick={onToggle}
              loading={toggling}
            >
              {collab.isEnabled ? 'Disable' : 'Enable'}
            </Button>
          )}
        </Wrap>
      </Card.Footer>
    </Card.Root>
  );
}
