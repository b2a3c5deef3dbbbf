function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fdfcf7");
  brush.scaleBrushes(1.5);
  brush.set("2B", "#22223b", 1);
  brush.fill("#f2e9e4", 120);
  brush.rect(50, 50, 220, 150);
  brush.fill("#9a8c98", 120);
  brush.circle(420, 130, 90);
  brush.noFill();
  brush.wash("#c9ada7", 120);
  brush.polygon([[60, 300], [260, 280], [220, 520], [90, 480]]);
  brush.noWash();
  brush.clip([300, 250, 560, 560]);
  brush.set("crayon", "#4a4e69", 3);
  for (let i = 0; i < 10; i++) brush.line(280, 260 + i * 30, 580, 300 + i * 30);
  brush.noClip();
  brush.set("pen", "#22223b", 1);
  brush.arc(430, 420, 100, 30, 300);
}
