// A small history-API router: the console has a handful of pages, so a routing library would not earn its place.
import { createContext, useContext, useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { routeOf, type Route } from './routes.js';

interface Navigation {
  route: Route;
  navigate: (path: string) => void;
}

const NavigationContext = createContext<Navigation | undefined>(undefined);

export function Router({ children }: { children: React.ReactNode }) {
  const [path, setPath] = useState(() => window.location.pathname);
  useEffect(() => {
    const onPop = () => setPath(window.location.pathname);
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = (to: string) => {
    window.history.pushState(null, '', to);
    setPath(to);
    window.scrollTo?.(0, 0);
  };
  return <NavigationContext value={{ route: routeOf(path), navigate }}>{children}</NavigationContext>;
}

export function useNavigation(): Navigation {
  const navigation = useContext(NavigationContext);
  if (!navigation) throw new Error('useNavigation outside <Router>');
  return navigation;
}

/** An anchor that changes page without reloading; modified clicks (new tab) are left to the browser. */
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { navigate } = useNavigation();
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={onClick} {...rest} />;
}
