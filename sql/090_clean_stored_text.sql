-- Stored text without the control and invisible characters a PDF's text layer carries (issue 36): a BEL drawn as
-- a bullet showed as a box on Ask and in exports, soft hyphens stayed in exports. Ingestion now drops them
-- (rag/ingest/layout.clean_text); this cleans what was stored before, once, in place:
--   * C0 controls but tab and line ends, DEL, C1 controls, zero-width space, word joiner, byte-order mark: removed;
--   * a soft hyphen followed by white space (a word broken at a line's end, joined with a space) joins the word;
--     any other soft hyphen is removed.
-- Chunks' full-text vectors follow (a generated column); their embeddings are left as they are: these characters
-- carry no meaning the model reads.
do $$
declare
    bad constant text := '[\x01-\x08\x0e-\x1f\x7f-\x9f\u200b\u2060\ufeff]';
begin
    update chunks
       set content = regexp_replace(regexp_replace(regexp_replace(content, bad, '', 'g'), '\u00ad\s+', '', 'g'),
                                    '\u00ad', '', 'g'),
           context = regexp_replace(regexp_replace(context, bad, '', 'g'), '\u00ad', '', 'g'),
           heading = regexp_replace(regexp_replace(heading, bad, '', 'g'), '\u00ad', '', 'g')
     where content ~ bad or content ~ '\u00ad' or context ~ bad or context ~ '\u00ad'
        or heading ~ bad or heading ~ '\u00ad';
    update figures
       set caption = regexp_replace(regexp_replace(caption, bad, '', 'g'), '\u00ad', '', 'g'),
           context = regexp_replace(regexp_replace(context, bad, '', 'g'), '\u00ad', '', 'g'),
           ocr_text = regexp_replace(regexp_replace(ocr_text, bad, '', 'g'), '\u00ad', '', 'g')
     where caption ~ bad or caption ~ '\u00ad' or context ~ bad or context ~ '\u00ad'
        or ocr_text ~ bad or ocr_text ~ '\u00ad';
    update documents
       set title = regexp_replace(regexp_replace(title, bad, '', 'g'), '\u00ad', '', 'g')
     where title ~ bad or title ~ '\u00ad';
end
$$;
