-- A conversation's turns: whoever may use the conversation (sql/policies/conversations.sql).

ALTER TABLE public.conversation_turns ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_conversation_turns ON public.conversation_turns;

CREATE POLICY app_conversation_turns ON public.conversation_turns TO rag_app USING ((conversation_id IN ( SELECT c.id
   FROM public.conversations c))) WITH CHECK ((conversation_id IN ( SELECT c.id
   FROM public.conversations c)));
