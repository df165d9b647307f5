// expect: not a bundle
// A push of a module table inside a string is text, not a chunk.
var help="(self.webpackChunk=self.webpackChunk||[]).push([[1],{5:(e,t,r)=>{e.exports=r(6)},6:e=>{e.exports=1}}])";console.log(help.length);
