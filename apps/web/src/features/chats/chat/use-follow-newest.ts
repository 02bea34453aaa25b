import { useEffect, type RefObject } from 'react';

/** How close to the end of the page counts as reading the newest message, in px. */
const AT_END_PX = 48;

/**
 * Keeps the newest message in view: the page opens at the end of the chat, and while the
 * person stays there, every growth of the chat (a new message, streamed text, a tool call card
 * and its Stop button, the composer's own notes) scrolls the page along, so nothing new sits
 * under the composer that is kept at the bottom of the window. Scrolling up to read stops it;
 * scrolling back to the end resumes it.
 */
export function useFollowNewest(chat: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = chat.current;
    if (!element) return;
    const root = document.documentElement;
    let following = true;
    let lastY = window.scrollY;
    const atEnd = () => window.innerHeight + window.scrollY >= root.scrollHeight - AT_END_PX;
    // Only the person scrolling up stops the following: the scroll events of this hook's own
    // scrolling may arrive after the chat grew again, when the page is briefly not at its end.
    const onScroll = () => {
      const y = window.scrollY;
      if (atEnd()) following = true;
      else if (y < lastY) following = false;
      lastY = y;
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
