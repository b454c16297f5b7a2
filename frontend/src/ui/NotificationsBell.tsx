import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { paths } from '../router';
import { socketUrl, type Notification, type NotificationMessage } from '../api/operations';
import { useAuthStore } from '../state/shared/authStore';
import { Link } from './Link';
import { useDismiss } from './useDismiss';

const RECONNECT_MS = 3000;

/** Follows ws/notifications/: the unread count and the newest notifications; reconnects when dropped. */
function useNotifications(enabled: boolean) {
  const [unread, setUnread] = useState(0);
  const [latest, setLatest] = useState<Notification[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const connect = () => {
      socket = new WebSocket(socketUrl('/ws/notifications/'));
      socket.onmessage = (message) => {
        const data = JSON.parse(String(message.data)) as NotificationMessage;
        setUnread(data.unread);
        if (data.type === 'notification') setLatest((list) => [data.notification, ...list].slice(0, 20));
      };
      socket.onclose = () => {
        if (!stopped) timer = setTimeout(connect, RECONNECT_MS);
      };
    };
    connect();
    api.listNotifications().then((list) => setLatest(list.slice(0, 20)), () => undefined);
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [enabled]);
  return { unread, latest, setUnread };
}

/** The bell in the app bar: a badge with the unread alert notifications, the newest in a list. */
export function NotificationsBell() {
  const authenticated = useAuthStore((state) => state.status === 'authenticated');
  const { unread, latest, setUnread } = useNotifications(authenticated);
  const [open, setOpen] = useState(false);
  const panel = useDismiss<HTMLDivElement>(open, useCallback(() => setOpen(false), []));
  if (!authenticated) return null;
  async function readAll() {
    setUnread((await api.readAllNotifications()).unread);
  }
  return (
    <div className="notifications" ref={panel}>
      <button type="button" className="notifications__bell" data-testid="notifications-bell" aria-expanded={open}
        aria-label={`Alerts: ${unread} unread`} onClick={() => setOpen(!open)}>
        Alerts
        {unread > 0 && (
          <span className="notifications__badge" data-testid="notifications-badge">
            {unread}
          </span>
        )}
      </button>
      {open && (
        <div className="notifications__list" role="menu" data-testid="notifications-list">
          {latest.length === 0 && <p className="muted">No alerts.</p>}
          {latest.map((notification) => (
            <div key={notification.id} className="notifications__item" data-testid="notification" data-kind={notification.kind}>
              {notification.run != null ? (
                <Link to={paths.run(notification.run)} title={`run #${notification.run}`} onClick={() => setOpen(false)}>
                  {notification.message}
                </Link>
              ) : (
                <span>{notification.message}</span>
              )}
              <span className="muted"> · {new Date(notification.created_at).toLocaleTimeString()}</span>
            </div>
          ))}
          <div className="notifications__footer">
            <Link to={paths.alerts()} data-testid="notifications-rules" onClick={() => setOpen(false)}>
              Alert rules…
            </Link>
            {unread > 0 && (
              <button type="button" className="link-button" data-testid="notifications-read-all" onClick={() => void readAll()}>
                Mark all read
              </button>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
