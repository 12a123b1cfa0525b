" The plugin's memd:// buffers: context bars, field labels, failures.
if exists('b:current_syntax')
  finish
endif

syntax match memdBar /▕[█░]\+▏/
syntax match memdLabel /^  \%(\a\| \)\{8,9}\ze /
syntax match memdHeader /^SESSION  .*$/
syntax match memdFailure /^memd: .*$/

highlight default link memdBar Special
highlight default link memdLabel Identifier
highlight default link memdHeader Title
highlight default link memdFailure ErrorMsg

let b:current_syntax = 'memd'
