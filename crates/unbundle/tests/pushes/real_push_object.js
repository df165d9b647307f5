// expect: 25 7
// webpack 5's chunk: an object of modules, string chunk ids, and a runner of its entry.
(self.webpackChunkapp=self.webpackChunkapp||[]).push([["main"],{25:(e,t,r)=>{e.exports=r(7)},7:e=>{e.exports=7}},e=>{var t=t=>e(e.s=t);t(25)}]);
