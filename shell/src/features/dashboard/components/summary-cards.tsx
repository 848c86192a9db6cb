import { Card, SimpleGrid, Skeleton, Stat } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** Figure is one card: a label and its value. */
export interface Figure {
  label: string;
  value: ReactNode;
  color?: string;
}

/**
 * FigureCards lays out figure cards; while loading, each shows a skeleton. A card is a definition
 * list of one label (dt) and its value (dd); the skeleton sits inside the dd, since a dl may hold
 * only dt/dd groups.
 */
export function FigureCards({ figures, loading, label, columns }: { figures: readonly Figure[]; loading: boolean; label: string; columns: Record<string, number> }) {
  return (
    <SimpleGrid columns={columns} gap="3" role="list" aria-label={label}>
      {figures.map((f) => (
        <Card.Root key={f.label} size="sm" role="listitem">
          <Card.Body>
            <Stat.Root>
              <Stat.Label>{f.label}</Stat.Label>
              <Stat.ValueText color={f.color}>
                <Skeleton loading={loading} minH="8">
                  {f.value}
                </Skeleton>
              </Stat.ValueText>
            </Stat.Root>
          </Card.Body>
        </Card.Root>
      ))}
    </SimpleGrid>
  );
}
