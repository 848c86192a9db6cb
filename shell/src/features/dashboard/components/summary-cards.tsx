import { Card, SimpleGrid, Skeleton, Stat } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** Figure is one card: a label and its value. */
export interface Figure {
  label: string;
  value: ReactNode;
  color?: string;
}

/** FigureCards lays out figure cards; while loading, each shows a skeleton. */
export function FigureCards({ figures, loading, label, columns }: { figures: readonly Figure[]; loading: boolean; label: string; columns: Record<string, number> }) {
  return (
    <SimpleGrid columns={columns} gap="3" role="list" aria-label={label}>
      {figures.map((f) => (
        <Card.Root key={f.label} size="sm" role="listitem">
          <Card.Body>
            <Stat.Root>
              <Stat.Label>{f.label}</Stat.Label>
              <Skeleton loading={loading} minH="8">
                <Stat.ValueText color={f.color}>{f.value}</Stat.ValueText>
              </Skeleton>
            </Stat.Root>
          </Card.Body>
        </Card.Root>
      ))}
    </SimpleGrid>
  );
}
