import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** Rendered instead of the children after an error; remount (new key) to try again. */
  fallback: (error: Error) => ReactNode;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

/** ErrorBoundary keeps a failing part of the console from blanking the rest. */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('Console section failed', error, info.componentStack);
  }


  render() {
    return this.state.error ? this.props.fallback(this.state.error) : this.props.children;
  }
}
