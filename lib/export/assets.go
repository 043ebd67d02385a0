package export

// css is the page's style: a sidebar with the tree, the conversation in
// cards, light and dark schemes.
const css = `:root{--bg:#f6f7f9;--card:#fff;--fg:#1f2328;--dim:#6a737d;--line:#d8dee4;--side:#eef1f4;
--user:#e9f2ff;--accent:#0969da;--tool:#f6f8fa;--err:#cf222e;--errbg:#ffebe9;--add:#1a7f37;--addbg:#e6ffec;--addmark:#abf2bc;
--delbg:#ffebe9;--delmark:#ffc1c0;--path:#0969da;--labelbg:#fff8c5}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--fg:#e6edf3;--dim:#8b949e;--line:#30363d;--side:#010409;
--user:#132339;--accent:#58a6ff;--tool:#0d1117;--err:#ff7b72;--errbg:#3c1618;--add:#3fb950;--addbg:#12261e;--addmark:#1f6f3a;
--delbg:#2d1214;--delmark:#792e2e;--path:#58a6ff;--labelbg:#3b2e00}}
*{box-sizing:border-box}
body{margin:0;font:14px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);display:flex}
aside{width:340px;flex:none;height:100vh;position:sticky;top:0;display:flex;flex-direction:column;background:var(--side);border-right:1px solid var(--line)}
#q{margin:10px;padding:6px 9px;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg);font:inherit}
.tree-head{padding:0 12px 6px;font-weight:600}
#tree{position:relative;overflow:auto;flex:1;padding:0 6px 20px;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
#tree ul{list-style:none;margin:0;padding:0}
#tree .fork{margin:2px 0 2px 4px}#tree .branch{border-left:2px solid var(--line);padding-left:8px;margin:3px 0}
#tree .branch:has(.on-path){border-left-color:var(--path)}
#tree a{display:block;padding:1px 6px;border-radius:4px;color:var(--dim);text-decoration:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#tree a:hover{background:var(--card)}
#tree .on-path>a{color:var(--fg)}#tree .on-path>a b{color:var(--path)}
#tree .leaf>a{background:var(--card);box-shadow:inset 3px 0 var(--path)}
#tree .r-toolResult>a{padding-left:18px}
#tree b{font-weight:600;margin-right:4px}
.label{background:var(--labelbg);border:1px solid var(--line);border-radius:4px;padding:0 4px;font-size:11px;margin-right:4px;color:var(--fg)}
main{flex:1;min-width:0;max-width:980px;margin:0 auto;padding:16px 28px 80px}
header{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin-bottom:16px}
header h1{font-size:18px;margin:0 0 8px}
header dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:10px 0 0}header dt{color:var(--dim)}header dd{margin:0}
.controls{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
button{font:inherit;font-size:12px;padding:3px 10px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);cursor:pointer}
button:hover{border-color:var(--accent)}
.dim{color:var(--dim);font-size:12px;font-weight:normal}
section.msg{margin:10px 0;padding:8px 14px;border-radius:8px;background:var(--card);border:1px solid var(--line);position:relative}
section.r-user{background:var(--user)}
section.merged{display:none}
section.off,section.nomatch,#tree li.nomatch{display:none}
section time{float:right;margin-left:8px;color:var(--dim);font-size:11px}
section.msg>.tool:first-of-type{clear:both}
section.flash{outline:2px solid var(--accent)}
.md{overflow-wrap:anywhere}.md p{margin:.4em 0}.md pre{padding:8px 10px;border-radius:6px;background:var(--tool);border:1px solid var(--line);overflow:auto}
.md code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace}.md :not(pre)>code{background:var(--tool);padding:1px 4px;border-radius:4px}
.md table{border-collapse:collapse}.md th,.md td{border:1px solid var(--line);padding:3px 8px}
.md blockquote{margin:.4em 0;padding-left:10px;border-left:3px solid var(--line);color:var(--dim)}
.plain{white-space:pre-wrap}
.prompt{tab-size:4;overflow-wrap:anywhere;margin:.2em 0}
details.thinking{color:var(--dim);font-style:italic;margin:6px 0}details.thinking summary{cursor:pointer;font-style:normal}
details.summary summary{cursor:pointer;font-weight:600}
details.subagent{margin:6px 10px 10px;padding-left:10px;border-left:3px solid var(--line)}details.subagent summary{cursor:pointer;font-weight:600}
.tool{margin:8px 0;border:1px solid var(--line);border-radius:6px;background:var(--tool);overflow:hidden}
.tool.error{border-color:var(--err)}
.tool-head{padding:4px 10px;font:600 12.5px ui-monospace,SFMono-Regular,Menlo,monospace;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
.tool.error .tool-head{color:var(--err)}
pre.out,pre.args{margin:0;padding:6px 10px;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap;overflow-wrap:anywhere;max-height:none}
pre.out.error{color:var(--err);background:var(--errbg)}
.fold .show-all{margin:0 10px 8px}
.diff{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap;overflow-wrap:anywhere;padding:4px 0}
.diff>div{padding:0 10px}.diff .add{background:var(--addbg);color:var(--add)}.diff .del{background:var(--delbg);color:var(--err)}
.diff .add mark{background:var(--addmark);color:inherit}.diff .del mark{background:var(--delmark);color:inherit}
.diff .hunk{color:var(--accent)}.diff .ctx{color:var(--dim)}
.usage{color:var(--dim);font-size:11px;text-align:right}
img{max-width:100%}
body.hide-thinking details.thinking{display:none}
body.hide-tools .tool,body.hide-tools section.r-toolResult{display:none}
@media (max-width:800px){body{display:block}aside{position:static;width:auto;height:auto;max-height:40vh}}`

// script shows a branch (the path from the root to an entry, continued
// to the newest leaf below it), searches, folds and toggles.
const script = `(function(){
var secs={},parent={},kids={},items={};
document.querySelectorAll('section[data-id]').forEach(function(s){secs[s.dataset.id]=s});
document.querySelectorAll('#tree li[data-id]').forEach(function(li){var id=li.dataset.id,p=li.dataset.parent;items[id]=li;parent[id]=p;(kids[p]=kids[p]||[]).push(id)});
function onPath(){var on={};document.querySelectorAll('#tree li.on-path').forEach(function(li){on[li.dataset.id]=1});return on}
function show(id){
 var old=onPath(),leaf=id;
 for(;;){var k=kids[leaf];if(!k||!k.length)break;var next=k[k.length-1];for(var i=0;i<k.length;i++)if(old[k[i]])next=k[i];leaf=next}
 var on={};for(var x=leaf;x&&!on[x];x=parent[x])on[x]=1;
 for(var s in secs)secs[s].classList.toggle('off',!on[s]);
 for(var t in items){items[t].classList.toggle('on-path',!!on[t]);items[t].classList.toggle('leaf',t===leaf)}
}
document.getElementById('tree').addEventListener('click',function(e){
 var li=e.target.closest('li[data-id]');if(!li)return;e.preventDefault();var id=li.dataset.id;show(id);
 var s=secs[id];if(s){if(s.classList.contains('merged')){s=document.getElementById('e-'+id)}
 window.scrollTo(0,s.getBoundingClientRect().top+window.scrollY-10);var f=s.closest('section')||s;f.classList.add('flash');setTimeout(function(){f.classList.remove('flash')},900)}
 history.replaceState(null,'','#e-'+id)});
document.addEventListener('click',function(e){
 var b=e.target.closest('button.show-all');if(!b)return;var f=b.closest('.fold');f.querySelector('.more').hidden=false;f.classList.add('open');b.remove()});
var q=document.getElementById('q');
q.addEventListener('input',function(){var v=q.value.toLowerCase();
 for(var s in secs)secs[s].classList.toggle('nomatch',!!v&&secs[s].textContent.toLowerCase().indexOf(v)<0);
 for(var t in items)items[t].classList.toggle('nomatch',!!v&&items[t].firstElementChild.textContent.toLowerCase().indexOf(v)<0)});
function toggle(cls,btn,what){var on=document.body.classList.toggle(cls);btn.textContent=(on?'Show ':'Hide ')+what}
var bt=document.getElementById('t-thinking'),bo=document.getElementById('t-tools');
bt.onclick=function(){toggle('hide-thinking',bt,'thinking')};bo.onclick=function(){toggle('hide-tools',bo,'tools')};
document.addEventListener('keydown',function(e){if(e.target===q||e.ctrlKey||e.metaKey||e.altKey)return;
 if(e.key==='t')bt.click();else if(e.key==='o')bo.click();else if(e.key==='/'){e.preventDefault();q.focus()}});
var h=location.hash.slice(3);if(h&&items[h])show(h);
var tr=document.getElementById('tree'),leaf=tr.querySelector('li.leaf');if(leaf)tr.scrollTop=leaf.offsetTop-tr.clientHeight/2;
})();`
