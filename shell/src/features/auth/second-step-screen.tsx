import { Card, Center, ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { SecondStepForm, type SecondStepProps } from './second-step';

/**
 * SecondStepScreen is the sign-in's second step on its own page, loaded by
 * the sign-in page only when a password sign-in needs one: it brings Chakra UI
 * (its own provider, since /login renders without the console's).
 */
export default function SecondStepScreen(props: SecondStepProps) {
  return (
    <ChakraProvider value={defaultSystem}>
      <Center minH="100vh" bg="bg.subtle" p={4}>
        <Card.Root w="full" maxW="md" as="main">
          <Card.Body>
            <SecondStepForm {...props} />
          </Card.Body>
        </Card.Root>
      </Center>
    </ChakraProvider>
  );
}
