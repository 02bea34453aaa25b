import { useEffect, type RefObject } from 'react';

/** How close to the end of the page counts as reading the newest message, in px. */
const AT_END_PX = 48;

/**
 * Keeps the newest message in view: the page opens at the end of the chat, and while the
 * person stays there, every growth of the chat (a new message, streamed text, a tool call card
 * and its Stop button, the composer's own notes) scrolls the page along, so nothing new sits under the composer that
 * is kept at the bottom of the window. Scrolling up to read stops it; scrolling back resumes.
 */
export function useFollowNewest(chat: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = chat.current;
    if (!element) return;
    const root = document.documentElement;
    let following = true;
    const atEnd = () => window.innerHeight + window.scrollY >= root.scrollHeight - AT_END_PX;
    const onScroll = () => {
      following = atEnd();
    };
    const grew = new ResizeObserver(() => {
      if (following) window.scrollTo({ top: root.scrollHeight });
    });
    grew.observe(element);
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      grew.disconnect();
      window.removeEventListener('scroll', onScroll);
    };
  }, [chat]);
}
