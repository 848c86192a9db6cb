import { Button, Card, Center, Field, Heading, Input, Stack } from '@chakra-ui/react';
import { auth, DEFAULT_LANDING, errorMessage, isApiError, notify, readStored, SCREENS, session, usePageTitle } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';

/** LoginPage signs in with username and password (spec 01 §2 "Login page"). */
export function LoginPage() {
  usePageTitle('Login');
  const navigate = useNavigate();
  const [username, setUsername] = useState(() => readStored('lastUsername') ?? '');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!username || !password) {
      notify.error('Please enter username and password');
      return;
    }
    setBusy(true);
    try {
      const user = await auth.login(username, password);
      const redirect = session.takeRedirect();
      navigate(user.isTemporaryPassword ? SCREENS.changePassword.link : (redirect ?? DEFAULT_LANDING), { replace: true });
    } catch (err) {
      if (isApiError(err) && err.status === 401) notify.error('Invalid username or password');
      else notify.error(errorMessage(err, 'Failed to login'));
      setBusy(false);
    }
  }

  return (
    <Center minH="100vh" bg="bg.subtle" p={4}>
      <Card.Root w="full" maxW="sm" as="main">
        <Card.Body>
          <form onSubmit={submit} noValidate>
            <Stack gap={5}>
              <Heading as="h1" size="xl" textAlign="center">
                Paygate
              </Heading>
              <Field.Root>
                <Field.Label>Username</Field.Label>
                <Input
                  name="username"
                  autoComplete="username"
                  value={username}
                  onChange={(e) => setUsername(e.target.value)}
                  autoFocus={!username}
                />
              </Field.Root>
              <Field.Root>
                <Field.Label>Password</Field.Label>
                <Input
                  name="password"
                  type="password"
                  autoComplete="current-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  autoFocus={!!username}
                />
              </Field.Root>
              <Button type="submit" colorPalette="blue" loading={busy} w="full">
                Login
              </Button>
            </Stack>
          </form>
        </Card.Body>
      </Card.Root>
    </Center>
  );
}
