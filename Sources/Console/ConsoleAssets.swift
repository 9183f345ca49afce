import ExchangeKernel
import IdentityPlatform

/// The console's additions to the shared page frame: a wider working layout, tables, and a few lines
/// of JavaScript for copy buttons and the live journal. Everything works without the script: copy
/// buttons stay hidden and the journal has a refresh link.
package enum ConsoleAssets {
    /// The empty icon keeps browsers from asking for /favicon.ico, which would land in the journal.
    static var head: HTML { HTML(raw: "<link rel=\"icon\" href=\"data:,\">\n<style>\(stylesheet)</style>\n<script>\(script)</script>") }

    static let stylesheet = """
    body{justify-content:flex-start}
    main.full{margin-top:24px}
    main.full h1{font-size:26px;margin-bottom:4px}
    .lede{color:#5e5e5e;margin:0 0 18px}
    nav.tabs{display:flex;gap:4px;border-bottom:1px solid #d1d1d1;margin:0 0 22px;flex-wrap:wrap}
    nav.tabs a{padding:8px 14px;color:#1b1b1b;text-decoration:none;border-bottom:3px solid transparent;margin-bottom:-1px}
    nav.tabs a:hover{background:#f3f3f3}
    nav.tabs a[aria-current=page]{border-bottom-color:#0067b8;font-weight:600;color:#0067b8}
    h2{font-size:18px;font-weight:600;margin:26px 0 10px}
    h3{font-size:15px;font-weight:600;margin:16px 0 8px}
    section{margin-bottom:8px}
    table.grid,table.claims{border-collapse:collapse;width:100%;font-size:13.5px;margin:6px 0 14px}
    table.grid th,table.claims th{text-align:left;font-weight:600;color:#444;background:#f6f6f6}
    table.grid th,table.grid td,table.claims th,table.claims td{padding:6px 10px;border-bottom:1px solid #e6e6e6;vertical-align:top}
    table.grid tbody tr:hover{background:#f7fbff}
    table.claims caption{text-align:left;font-weight:600;padding:4px 0;color:#444}
    table.claims th[scope=row]{width:160px;background:none}
    td.meaning{color:#5e5e5e;width:42%}
    code,.mono{font-family:"Cascadia Mono",Consolas,"SFMono-Regular",Menlo,monospace;font-size:12.5px;overflow-wrap:anywhere}
    .nowrap{white-space:nowrap}
    a.path{overflow-wrap:break-word}
    pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:10px 12px;overflow:auto;font-size:12.5px;max-height:420px;white-space:pre-wrap;word-break:break-all}
    button.copy{min-width:0;padding:0 7px;font-size:11.5px;line-height:18px;margin-left:6px;vertical-align:1px;background:#fff;border:1px solid #c8c8c8;color:#0067b8;border-radius:3px}
    button.copy:hover{background:#f3f9fd;border-color:#0067b8}
    .pill{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;background:#eef2f7;color:#33475b;font-weight:600}
    .status{display:inline-block;min-width:38px;text-align:center;padding:1px 6px;border-radius:4px;font-weight:600;font-size:12.5px}
    .s2{background:#dff6dd;color:#0b5a08}.s3{background:#e5f1fb;color:#004e8c}.s4{background:#fff4ce;color:#6b4d00}.s5{background:#fde7e9;color:#a4262c}
    .verdict{padding:8px 12px;border-left:4px solid;margin:8px 0}
    .verdict.ok{border-color:#107c10;background:#f1faf1}
    .verdict.bad{border-color:#a80000;background:#fdf3f4}
    .notice{padding:8px 12px;border-left:4px solid #0067b8;background:#f3f9fd;margin:0 0 14px}
    .alert{padding:8px 12px;border-left:4px solid #a80000;background:#fdf3f4}
    form.inline{display:inline-flex;gap:6px;align-items:center;margin:0}
    form.filters,form.stack{display:flex;gap:10px;flex-wrap:wrap;align-items:flex-end;margin:6px 0 12px}
    form.filters label,form.stack label{margin:0;font-weight:600;font-size:12.5px;color:#444}
    form.filters input,form.filters select,form.stack input,form.stack select{display:block;margin-top:3px;font:inherit;font-weight:400;font-size:13.5px;padding:4px 6px;border:1px solid #8a8886;min-width:150px;width:auto;max-width:100%}
    form.stack select#b-scenario{width:420px}
    form.stack input#b-value{width:360px}
    form.inline input{font:inherit;font-size:13px;padding:2px 6px;border:1px solid #8a8886}
    button.small{min-width:0;padding:3px 10px;font-size:13px}
    a.button{display:inline-block;padding:3px 10px;font-size:13px;border:1px solid #0067b8;background:#0067b8;color:#fff;text-decoration:none;white-space:nowrap}
    a.button:hover{background:#005a9e}
    button.danger{border-color:#a80000;color:#a80000;background:#fff}
    .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:8px 0 18px}
    .cards a{display:block;border:1px solid #e1e1e1;padding:12px 14px;text-decoration:none;color:#1b1b1b}
    .cards a:hover{border-color:#0067b8}
    .cards strong{display:block;font-size:24px;font-weight:600;color:#0067b8}
    .cards small{display:block;color:#5e5e5e;font-size:12px}
    .live{font-size:12.5px;color:#5e5e5e;margin-left:8px}
    .live::before{content:"";display:inline-block;width:8px;height:8px;border-radius:50%;background:#b3b3b3;margin-right:6px}
    .live.on::before{background:#107c10}
    tr.fresh{animation:fresh 2s ease-out}
    @keyframes fresh{from{background:#fff4ce}to{background:transparent}}
    .empty{color:#5e5e5e;font-style:italic}
    details>summary{cursor:pointer;color:#0067b8}
    textarea#mintedToken{width:100%;font-family:"Cascadia Mono",Consolas,Menlo,monospace;font-size:12px;padding:8px;border:1px solid #c8c8c8;background:#f6f8fa;resize:vertical;word-break:break-all}
    form#mint-form label{flex:1 1 200px}
    form#mint-form input,form#mint-form select{width:100%}
    """

    /// The console's one script; pages allow it by its hash (`PageSecurityHeaders`).
    package static let script = """
    document.addEventListener('DOMContentLoaded',function(){
      document.querySelectorAll('button[data-copy]').forEach(function(b){b.hidden=false;});
      document.addEventListener('click',function(e){
        var b=e.target.closest('button[data-copy]');if(!b)return;
        var done=function(){var t=b.textContent;b.textContent='Copied';setTimeout(function(){b.textContent=t;},1200);};
        if(navigator.clipboard){navigator.clipboard.writeText(b.dataset.copy).then(done);}
      });
      var list=document.getElementById('journal');
      if(!list||!list.dataset.live)return;
      var body=list.querySelector('tbody'),status=document.getElementById('live');
      var latest=function(){var m=0;body.querySelectorAll('tr[data-entry-id]').forEach(function(r){m=Math.max(m,+r.dataset.entryId);});return m;};
      var poll=function(){
        if(document.hidden)return;
        fetch(list.dataset.live+'&after='+latest(),{credentials:'same-origin'}).then(function(r){return r.ok?r.text():Promise.reject(r.status);}).then(function(html){
          var t=document.createElement('template');t.innerHTML=html.trim();
          var rows=t.content.querySelectorAll('tr[data-entry-id]');
          if(rows.length){var none=body.querySelector('tr.none');if(none)none.remove();}
          for(var i=rows.length-1;i>=0;i--){rows[i].classList.add('fresh');body.insertBefore(rows[i],body.firstChild);}
          if(status){status.classList.add('on');status.textContent='Live · checked '+new Date().toLocaleTimeString();}
        }).catch(function(){if(status){status.classList.remove('on');status.textContent='Live updates paused (server unreachable)';}});
      };
      setInterval(poll,2000);poll();
    });
    """
}
