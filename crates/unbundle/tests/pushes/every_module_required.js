// expect: 1 2
// No literal chunk ids, but the push runs module 1, which requires module 2: a chunk.
(self.chunks=self.chunks||[]).push([self.ids,{1:function(a,b,c){a.exports=c(2)},2:function(a,b,c){a.exports=2}},function(e){e(e.s=1)}]);
