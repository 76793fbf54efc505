// A page's code comes in a chunk of its own (page-chunks.ts). When that chunk cannot be fetched (the network is down,
// or the console was updated and the chunk this tab knows of is gone), the page says so and offers a reload, instead
// of React unmounting the whole console.
import { Component, type ReactNode } from 'react';
import { ErrorState } from '../ui/states.js';

interface Props {
  /** Names the route: opening another page clears the error. */
  routeKey: string;
  children: ReactNode;
}

export class PageLoadBoundary extends Component<Props, { error: unknown; routeKey: string }> {
  override state = { error: undefined as unknown, routeKey: this.props.routeKey };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: { error: unknown; routeKey: string }) {
    return props.routeKey === state.routeKey ? null : { error: undefined, routeKey: props.routeKey };
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    // React.lazy keeps a failed import, so only a reload (which fetches the console's current files) tries again.
    return <ErrorState error={this.state.error} retry={() => window.location.reload()} />;
  }
}
