import { Button, Center, Heading, Stack, Text } from '@chakra-ui/react';
import { usePageTitle } from '@paygate/sdk';
import { Link } from 'react-router';

/** NotFoundPage is the page of any path outside the route table. */
export function NotFoundPage() {
  usePageTitle('Not Found');
  return (
    <Center minH="60vh" p={6}>
      <Stack gap={4} align="center" textAlign="center">
        <Heading as="h1" size="2xl">
          404 - Page Not Found
        </Heading>
        <Text color="fg.muted">Sorry, the page you are looking for does not exist.</Text>
        <Button asChild colorPalette="blue">
          <Link to="/">Go Back Home</Link>
        </Button>
      </Stack>
    </Center>
  );
}
